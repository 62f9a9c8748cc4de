package org.openxet.storage;

import java.util.List;

/**
 * A user of the token routes as an index that keeps users stores it: the SHA-256 (hex) of the token, never the token.
 *
 * @param repos  repository patterns ({@code *} matches any characters)
 * @param access {@code read} or {@code write}
 */
public record StoredUser(String name, String tokenSha256, List<String> repos, String access) {
    public StoredUser {
        repos = List.copyOf(repos);
    }
}
