package org.openxet.protocol;

/**
 * Untrusted bytes that do not follow a Xet format (§3, §4): a malformed record, a bad length, a hash that does not
 * match its content. Checked on purpose, so every parser failure is typed and the HTTP layer maps all of them to 400
 * in one place.
 */
public class FormatException extends Exception {
    public FormatException(String message) {
        super(message);
    }

    public FormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
