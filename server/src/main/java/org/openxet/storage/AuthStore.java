package org.openxet.storage;

import java.util.List;

/**
 * Where the users of the token routes and openxet's signing keys live: in the data dir for a node of its own
 * ({@link FileAuthStore}), in the shared PostgreSQL index for several nodes ({@link PostgresAuthStore}), so that a
 * user added, revoked or a key rotated on one node reaches every node without copying files. Readers re-read it on a
 * schedule (see {@code service.Users} and {@code service.KeySet}); writes come from the CLI and from a node's start.
 */
public interface AuthStore {
    /** Whether every node sharing the index reads this store (else only this data dir's node). */
    boolean shared();

    List<StoredUser> users() throws IndexException;

    /**
     * Stores a user: replacing one of the same name, or, with {@code replace} false, only if there is none (an import
     * must not undo a later change made on another node). True when stored.
     */
    boolean putUser(StoredUser user, boolean replace) throws IndexException;

    /** Every signing key, retired ones included, oldest first. */
    List<StoredKey> keys() throws IndexException;

    /** Adds a key unless one has its id (true when added), or, with {@code replace}, replaces it (retirement). */
    boolean putKey(StoredKey key, boolean replace) throws IndexException;
}
