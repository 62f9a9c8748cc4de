package org.openxet.storage;

import org.openxet.protocol.MerkleHash;

import java.util.Set;

/**
 * A registration named xorbs that the index no longer holds when it commits (collected, or never registered): the
 * whole registration is rolled back, never committed with terms that point nowhere. The client must upload them again.
 */
public final class MissingXorbsException extends RuntimeException {
    public MissingXorbsException(int missing, Set<MerkleHash> named) {
        super(missing + " of the " + named.size() + " xorbs this shard names are not stored here (e.g. "
                + named.iterator().next() + " or another); upload them again");
    }
}
