package org.openxet.protocol;

/** Text that is not a protocol hex hash (§1.1). */
public final class InvalidHashException extends FormatException {
    public InvalidHashException(String message) {
        super(message);
    }
}
