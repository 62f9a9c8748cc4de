package org.openxet.service;

/** A verified CAS token: the repository scope, the access level and the expiry (Unix seconds). */
public record Grant(String scope, Access access, long expiresAt) {
}
