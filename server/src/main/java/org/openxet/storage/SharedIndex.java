package org.openxet.storage;

/**
 * What only an index several nodes share has (PostgreSQL): the record that every node holds the same keys, collection
 * while the nodes serve, and the users and signing keys every node reads. An index private to one data dir has none
 * of these ({@link Index#shared()} is empty): its keys, users and lock sit in the data dir beside it.
 */
public interface SharedIndex {
    /**
     * Records {@code fingerprint} (of this node's token and URL keys) unless one is recorded already, and returns the
     * recorded one. Nodes holding other keys would refuse each other's tokens and signed URLs, so a node whose
     * fingerprint differs must not serve.
     */
    byte[] keyFingerprint(byte[] fingerprint) throws IndexException;

    /** Collection while nodes serve ({@code openxet gc --online}). */
    OnlineCollection onlineCollection();

    /** The users of the token routes and the signing keys, read by every node. */
    AuthStore authStore();
}
