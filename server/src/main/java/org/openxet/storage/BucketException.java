package org.openxet.storage;

import java.io.IOException;

/**
 * The store behind a bucket failed an operation: unreachable, refused, timed out or answered an error. The server's
 * fault, never the client's, even when its cause is a {@link java.net.SocketException} (a refused connection to the
 * store is one), and worth a retry.
 */
public final class BucketException extends IOException {
    public BucketException(String message, Throwable cause) {
        super(message, cause);
    }
}
