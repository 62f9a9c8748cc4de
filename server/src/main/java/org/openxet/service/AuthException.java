package org.openxet.service;

/** A request without the right to what it asks: {@code forbidden} false → 401, true → 403. */
public final class AuthException extends Exception {
    private final boolean forbidden;

    public AuthException(String message, boolean forbidden) {
        super(message);
        this.forbidden = forbidden;
    }

    public boolean forbidden() {
        return forbidden;
    }
}
