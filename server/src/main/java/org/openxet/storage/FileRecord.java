package org.openxet.storage;

import org.openxet.protocol.MerkleHash;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A file's reconstruction as the index keeps it: distinct xorbs, and {@value #TERM_INTS} ints per term (see
 * {@link #TERM_INTS}): xorb index, chunk start, chunk end (exclusive), unpacked bytes, stored byte start, stored byte
 * end (exclusive). Packed so a 100,000-term file is one 2.4 MB array, not 100,000 objects.
 *
 * <p>The terms are kept as the index's BLOB holds them ({@code packedTerms}: little-endian ints, {@link Packing}) and
 * read in place: a record read from the index is the driver's array, not a decoded copy of it, which for a
 * 100,000-term file was another 2.4 MB allocated and copied on every read (docs/BENCHMARKS.md, "Release rig").
 * {@code packedTerms} is never changed after the record is made; records of the same row may share it.
 *
 * @param sha256 the file's SHA-256 its shard carried, or null
 */
public record FileRecord(MerkleHash fileHash, long size, MerkleHash[] xorbs, byte[] packedTerms, MerkleHash sha256) {
    public static final int TERM_INTS = 6;
    public static final int XORB = 0;
    public static final int CHUNK_START = 1;
    public static final int CHUNK_END = 2;
    public static final int UNPACKED = 3;
    public static final int BYTE_START = 4;
    public static final int BYTE_END = 5;

    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    public FileRecord {
        if (packedTerms.length % (4 * TERM_INTS) != 0) {
            throw new IllegalArgumentException("terms of " + packedTerms.length + " bytes are not whole terms");
        }
    }

    /** A record of {@code terms}, {@link #TERM_INTS} ints per term (registration, fixtures, tests). */
    public FileRecord(MerkleHash fileHash, long size, MerkleHash[] xorbs, int[] terms, MerkleHash sha256) {
        this(fileHash, size, xorbs, Packing.ints(terms), sha256);
    }

    public int termCount() {
        return packedTerms.length / (4 * TERM_INTS);
    }

    public int term(int t, int field) {
        return (int) INT_LE.get(packedTerms, 4 * (t * TERM_INTS + field));
    }

    /** A copy of the terms as ints, {@link #TERM_INTS} per term (tests and tools; readers use {@link #term}). */
    public int[] terms() {
        return Packing.ints(packedTerms, 0, packedTerms.length / 4);
    }

    /**
     * A record from its {@code files} row: the xorb hashes and the terms as {@link Packing} packs them. {@code terms}
     * is kept, not copied: the caller passes the driver's array and nothing writes to it after.
     */
    static FileRecord decode(MerkleHash fileHash, long size, byte[] sha256, byte[] xorbRefs, byte[] terms) {
        return new FileRecord(fileHash, size, Packing.hashes(xorbRefs), terms,
                sha256 == null ? null : MerkleHash.fromBytes(sha256));
    }
}
