package org.openxet.protocol;

import java.util.ArrayList;
import java.util.List;

/**
 * The §1.4 aggregated merkle hash, fed one leaf at a time in memory bounded by the tree's height (at most 9 pending
 * nodes a level), so a file of millions of chunks is hashed without holding its chunk list. A group's length depends
 * only on the nodes in it, except at a level's end (the last group takes what is left), so every group is hashed as
 * soon as it is decided and the levels' ends are settled, bottom up, by {@link #root()}. One builder makes one root.
 */
public final class MerkleBuilder {
    /** Longest group (§1.4 {@code cut}): a group ends at the first cut hash from its third node on, or at nine. */
    static final int MAX_GROUP = 9;
    /** Shortest group: two nodes (a level's last group may be one node only when it is the whole level). */
    static final int MIN_GROUP = 2;
    /** {@link #hashGroup}'s text buffer: 9 lines of at most 64 + 3 + 20 + 1 bytes. */
    static final int GROUP_TEXT = MAX_GROUP * 88;

    private final List<Level> levels = new ArrayList<>();
    private final byte[] text = new byte[GROUP_TEXT];
    private final byte[] node = new byte[32];
    private long leaves;

    private static final class Level {
        final byte[] hashes = new byte[32 * MAX_GROUP];
        final long[] sizes = new long[MAX_GROUP];
        int pending;
        long total;
    }

    /** Adds the leaf whose raw 32-byte hash is at {@code hashes[offset]}, covering {@code size} bytes. */
    public void add(byte[] hashes, int offset, long size) {
        leaves++;
        add(0, hashes, offset, size);
    }

    /** Leaves added so far. */
    public long leaves() {
        return leaves;
    }

    /** The root: zero for no leaves, the leaf itself for one. Consumes the builder. */
    public MerkleHash root() {
        if (levels.isEmpty()) {
            return MerkleHash.ZERO;
        }
        for (int l = 0; ; l++) {
            Level level = levels.get(l);
            if (level.total == 1) {
                // Nothing was ever grouped on this level (a group needs two nodes), so its node is still pending.
                return MerkleHash.fromBytes(level.hashes, 0);
            }
            // The level's end is known now: what is pending is one last group (no cut was among it).
            if (level.pending > 0) {
                group(l, level);
            }
        }
    }

    private void add(int l, byte[] hashes, int offset, long size) {
        if (l == levels.size()) {
            levels.add(new Level());
        }
        Level level = levels.get(l);
        int j = level.pending;
        System.arraycopy(hashes, offset, level.hashes, 32 * j, 32);
        level.sizes[j] = size;
        level.pending = j + 1;
        level.total++;
        // Earlier nodes were checked when they arrived, so only the newest can end the group: a cut hash
        // (word3 mod 4 == 0; the low byte of word3 is raw byte 24) from the third node on, or the ninth node.
        if (j + 1 == MAX_GROUP || (j >= 2 && isCut(level.hashes, 32 * j))) {
            group(l, level);
        }
    }

    /** Hashes every pending node of level {@code l} as one group into a node of level {@code l + 1}. */
    private void group(int l, Level level) {
        long total = hashGroup(level.hashes, 0, level.sizes, 0, level.pending, text, node, 0);
        level.pending = 0;
        add(l + 1, node, 0, total);
    }

    /** A hash whose node ends a group (§1.4 {@code cut}: word3 mod 4 == 0; word3's low byte is raw byte 24). */
    static boolean isCut(byte[] hashes, int offset) {
        return (hashes[offset + 24] & 3) == 0;
    }

    /**
     * §1.4: hashes the {@code count} nodes at {@code hashes[32 * from]} / {@code sizes[sizeFrom]} as one group, the
     * parent's raw hash into {@code out[outOffset]}; {@code text} holds at least {@code 9 * 88} bytes. Returns the
     * parent's size, the sum of the nodes'.
     */
    static long hashGroup(byte[] hashes, int from, long[] sizes, int sizeFrom, int count, byte[] text, byte[] out,
                          int outOffset) {
        int pos = 0;
        long total = 0;
        for (int j = 0; j < count; j++) {
            MerkleHash.writeHex(hashes, 32 * (from + j), text, pos);
            pos += 64;
            text[pos++] = ' ';
            text[pos++] = ':';
            text[pos++] = ' ';
            pos = writeDecimal(text, pos, sizes[sizeFrom + j]);
            text[pos++] = '\n';
            total += sizes[sizeFrom + j];
        }
        Blake3.get().keyedHash(XetHashes.NODE_KEY, text, 0, pos, out, outOffset);
        return total;
    }

    /** Plain unsigned decimal (sizes are u64), written without allocating: a file can have millions of nodes. */
    private static int writeDecimal(byte[] out, int pos, long value) {
        int digits = 1;
        for (long v = Long.divideUnsigned(value, 10); v != 0; v /= 10) {
            digits++;
        }
        long v = value;
        for (int k = pos + digits - 1; k >= pos; k--) {
            out[k] = (byte) ('0' + Long.remainderUnsigned(v, 10));
            v = Long.divideUnsigned(v, 10);
        }
        return pos + digits;
    }
}
