package org.openxet.storage;

import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.xorb.ChunkTable;

/** What the index keeps of a stored xorb: its footer's chunk table and the stored object's size. */
public record XorbLayout(MerkleHash hash, ChunkTable chunks, long storedBytes) {
}
