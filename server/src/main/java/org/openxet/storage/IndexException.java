package org.openxet.storage;

/** The index failed (I/O, database), as opposed to the request being wrong: a 5xx. */
public final class IndexException extends Exception {
    public IndexException(String message, Throwable cause) {
        super(message, cause);
    }
}
