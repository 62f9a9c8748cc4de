package org.openxet.storage;

import java.util.List;

/**
 * A user of the token routes as an {@link AuthStore} keeps it: the SHA-256 (hex) of the token, never the token.
 *
 * @param repos      repository patterns ({@code *} matches any characters)
 * @param access     {@code read} or {@code write}
 * @param generation bumped by every revocation and re-issue: the CAS tokens minted for the user carry the generation
 *                   they were minted in, and one older than the user's is refused
 * @param revoked    the user's token mints nothing until it is re-issued
 */
public record StoredUser(String name, String tokenSha256, List<String> repos, String access, long generation,
                         boolean revoked) {
    public StoredUser {
        repos = List.copyOf(repos);
    }

    public StoredUser(String name, String tokenSha256, List<String> repos, String access) {
        this(name, tokenSha256, repos, access, 0, false);
    }
}
