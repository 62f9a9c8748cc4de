package org.openxet.storage;

import org.openxet.protocol.MerkleHash;

/**
 * A file's reconstruction as the index keeps it: distinct xorbs, and {@value #TERM_INTS} ints per term (see
 * {@link #TERM_INTS}): xorb index, chunk start, chunk end (exclusive), unpacked bytes, stored byte start, stored byte
 * end (exclusive). Packed so a 100,000-term file is one 2.4 MB array, not 100,000 objects.
 */
public record FileRecord(MerkleHash fileHash, long size, MerkleHash[] xorbs, int[] terms, MerkleHash sha256) {
    public static final int TERM_INTS = 6;
    public static final int XORB = 0;
    public static final int CHUNK_START = 1;
    public static final int CHUNK_END = 2;
    public static final int UNPACKED = 3;
    public static final int BYTE_START = 4;
    public static final int BYTE_END = 5;

    public int termCount() {
        return terms.length / TERM_INTS;
    }

    public int term(int t, int field) {
        return terms[t * TERM_INTS + field];
    }

    /** A record from its {@code files} row: the xorb hashes and the terms as {@link Packing} packs them. */
    static FileRecord decode(MerkleHash fileHash, long size, byte[] sha256, byte[] xorbRefs, byte[] terms) {
        return new FileRecord(fileHash, size, Packing.hashes(xorbRefs), Packing.ints(terms, 0, terms.length / 4),
                sha256 == null ? null : MerkleHash.fromBytes(sha256));
    }
}
