package org.openxet.protocol;

import java.util.HexFormat;

/**
 * Every hash of the protocol (§1), on top of keyed BLAKE3. Chunk hashes travel as raw 32-byte runs in one array
 * ({@code raw[32 * k]}) because that is how xorb footers and verification hashes consume them: a verification hash
 * of chunks {@code [a, b)} is one keyed hash over {@code raw[32a, 32b)}, no copying.
 */
public final class XetHashes {
    private static final HexFormat PLAIN_HEX = HexFormat.of();
    /** §1.2 DATA_KEY: chunk hashes. */
    static final byte[] DATA_KEY = PLAIN_HEX.parseHex("6697f5775b9550de3135cbaca597181c9de421109beb2b58b4d0b04b93adf229");
    /** §1.2 INTERNAL_NODE_HASH: merkle internal nodes. */
    static final byte[] NODE_KEY = PLAIN_HEX.parseHex("017ec5c7a5472996fd946666b48a02e65ddd536f37c76dd2f86352e64a53713f");
    /** §1.2 VERIFICATION_KEY: term verification (range) hashes. */
    static final byte[] VERIFICATION_KEY = PLAIN_HEX.parseHex("7f1857d6ce56ed66127ff913e7a5c3f3a4cd26d5b5db49e64124987f28fb94c3");
    /** §1.5: the file hash is the merkle root keyed once more with 32 zero bytes. */
    static final byte[] FILE_KEY = new byte[32];

    /** §1.8 rule 1: word3 mod 1024 == 0 makes a chunk eligible for the global dedup index. */
    public static final int GLOBAL_DEDUP_MODULUS = 1024;

    private XetHashes() {
    }

    public static byte[] dataKey() {
        return DATA_KEY.clone();
    }

    /** §1.3: keyed BLAKE3 of the uncompressed chunk bytes. */
    public static MerkleHash chunkHash(byte[] data, int offset, int length) {
        return Blake3.get().keyedHash(DATA_KEY, data, offset, length);
    }

    public static void chunkHash(byte[] data, int offset, int length, byte[] out, int outOffset) {
        Blake3.get().keyedHash(DATA_KEY, data, offset, length, out, outOffset);
    }

    /** Hashes {@code count} slices of one buffer as chunks, results at {@code out[32 * i]} (one native downcall). */
    public static void chunkHashes(byte[] data, int[] offsets, int[] lengths, int count, byte[] out) {
        Blake3.get().keyedHashBatch(DATA_KEY, data, offsets, lengths, count, out);
    }

    /**
     * §1.4 aggregated merkle hash of {@code count} leaves: leaf {@code k} is the raw hash at {@code raw[32k]} with
     * size {@code sizes[k]}. This is the xorb hash of a chunk list. Empty list → zero hash; one leaf → that leaf.
     */
    public static MerkleHash merkleRoot(byte[] raw, long[] sizes, int count) {
        MerkleBuilder tree = new MerkleBuilder();
        for (int k = 0; k < count; k++) {
            tree.add(raw, 32 * k, sizes[k]);
        }
        return tree.root();
    }

    /** §1.5: file hash from the file's chunk list (raw hashes + sizes, in file order). */
    public static MerkleHash fileHash(byte[] raw, long[] sizes, int count) {
        if (count == 0) {
            return MerkleHash.ZERO;
        }
        return fileHashOfRoot(merkleRoot(raw, sizes, count));
    }

    /** §1.5: file hash of the chunks fed to {@code chunks} in file order (consumes it). */
    public static MerkleHash fileHash(MerkleBuilder chunks) {
        return chunks.leaves() == 0 ? MerkleHash.ZERO : fileHashOfRoot(chunks.root());
    }

    public static MerkleHash fileHashOfRoot(MerkleHash root) {
        byte[] rootBytes = root.toBytes();
        return Blake3.get().keyedHash(FILE_KEY, rootBytes, 0, 32);
    }

    /** §1.6: verification hash of chunks {@code [from, to)} given all chunk hashes of a xorb back to back. */
    public static MerkleHash verificationHash(byte[] raw, int from, int to) {
        return Blake3.get().keyedHash(VERIFICATION_KEY, raw, 32 * from, 32 * (to - from));
    }

    /** §1.7: a chunk hash keyed for a global-dedup answer; the key is the 32 raw bytes the shard footer carries. */
    public static MerkleHash keyedChunkHash(byte[] hmacKey, MerkleHash hash) {
        return Blake3.get().keyedHash(hmacKey, hash.toBytes(), 0, 32);
    }

    /** §1.8 rule 1. */
    public static boolean isGlobalDedupEligible(MerkleHash chunkHash) {
        return Long.remainderUnsigned(chunkHash.word3(), GLOBAL_DEDUP_MODULUS) == 0;
    }
}
