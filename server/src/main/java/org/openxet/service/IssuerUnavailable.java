package org.openxet.service;

/** A trusted issuer's keys could not be fetched even once: the server's trouble, not the token's (a 503). */
public final class IssuerUnavailable extends Exception {
    IssuerUnavailable(String message) {
        super(message);
    }
}
