package org.openxet.protocol;

import java.util.Arrays;

/**
 * A contiguous run of a file's chunks as a partially aggregated §1.4 tree (xet-core's {@code MerkleHashSubtree}, the
 * {@code hashRanges} entries of {@code GET /v2/file-chunk-hashes}): per level, the nodes at the run's left edge that
 * cannot be grouped without knowing what precedes the run, the ones at its right edge that cannot without knowing what
 * follows, and the groups in between promoted to the next level. A client merges such runs with chunks of its own
 * and gets the file hash without the run's chunk list, which can be millions long.
 *
 * <p>Layout, as serialized: {@code nodes} holds every level's left nodes, levels ascending, then every level's right
 * nodes, levels descending; {@code levels[l]} is the (left, right) count of level {@code l}. A run that starts at the
 * file's first chunk ({@code atStart}) has no left nodes below its top, one that ends at the last ({@code atEnd}) no
 * right ones, so a whole file is a single node at the top: its aggregated hash.
 */
public final class MerkleHashSubtree {
    private final byte[] hashes;
    private final long[] sizes;
    private final int[][] levels;
    private final boolean atStart;
    private final boolean atEnd;

    private MerkleHashSubtree(byte[] hashes, long[] sizes, int[][] levels, boolean atStart, boolean atEnd) {
        this.hashes = hashes;
        this.sizes = sizes;
        this.levels = levels;
        this.atStart = atStart;
        this.atEnd = atEnd;
    }

    /**
     * Nodes, raw 32-byte hashes back to back and their sizes: one level while a subtree is built, or the chunks a
     * caller collects for {@link #fromChunks(boolean, Nodes, boolean)}.
     */
    public static final class Nodes {
        byte[] hashes;
        long[] sizes;
        int n;

        public Nodes() {
            this(64);
        }

        Nodes(int capacity) {
            hashes = new byte[32 * Math.max(1, capacity)];
            sizes = new long[Math.max(1, capacity)];
        }

        /** The caller's arrays as they are, to read only: a gap can be millions of chunks, not worth a copy. */
        Nodes(byte[] hashes, long[] sizes, int n) {
            this.hashes = hashes;
            this.sizes = sizes;
            this.n = n;
        }

        /** Appends the node whose raw hash is at {@code from[offset]}. */
        public void add(byte[] from, int offset, long size) {
            if (n == sizes.length) {
                hashes = Arrays.copyOf(hashes, 64 * n);
                sizes = Arrays.copyOf(sizes, 2 * n);
            }
            System.arraycopy(from, offset, hashes, 32 * n, 32);
            sizes[n++] = size;
        }

        /** Empties it for reuse, keeping its arrays. */
        public void clear() {
            n = 0;
        }

        void addRange(Nodes from, int start, int end) {
            for (int k = start; k < end; k++) add(from.hashes, 32 * k, from.sizes[k]);
        }

        boolean cut(int k) {
            return MerkleBuilder.isCut(hashes, 32 * k);
        }
    }

    /**
     * The subtree of {@code count} chunks (raw hashes at {@code chunkHashes[32 k]}, sizes {@code chunkSizes[k]}):
     * {@code atStart} when the first is the file's first chunk, {@code atEnd} when the last is its last.
     */
    public static MerkleHashSubtree fromChunks(boolean atStart, byte[] chunkHashes, long[] chunkSizes, int count,
                                               boolean atEnd) {
        return fromChunks(atStart, new Nodes(chunkHashes, chunkSizes, count), atEnd);
    }

    /** The subtree of the collected {@code chunks}, read as they are (not copied). */
    public static MerkleHashSubtree fromChunks(boolean atStart, Nodes chunks, boolean atEnd) {
        Nodes current = chunks;
        Nodes lefts = new Nodes(64);
        Nodes rights = new Nodes(64);
        int[][] levels = new int[8][];
        int levelCount = 0;
        boolean leftsEmpty = true;
        boolean rightsEmpty = true;
        byte[] text = new byte[MerkleBuilder.GROUP_TEXT];
        while (true) {
            // Groups average four nodes (a cut hash is one in four), at least two.
            Nodes promoted = new Nodes(current.n / 4 + 16);
            int[] split = splitAndPromote(current, atStart && leftsEmpty, atEnd && rightsEmpty, promoted, text);
            lefts.addRange(current, 0, split[0]);
            rights.addRange(current, current.n - split[1], current.n);
            leftsEmpty &= split[0] == 0;
            rightsEmpty &= split[1] == 0;
            if (levelCount + 2 > levels.length) levels = Arrays.copyOf(levels, 2 * levels.length);
            levels[levelCount++] = split;
            if (promoted.n == 0) {
                break;
            }
            if (promoted.n == 1) {
                lefts.addRange(promoted, 0, 1);
                levels[levelCount++] = new int[]{1, 0};
                break;
            }
            current = promoted;
        }
        // Flatten: all lefts (levels ascending), then the rights by level descending.
        Nodes all = new Nodes(lefts.n + rights.n);
        all.addRange(lefts, 0, lefts.n);
        int end = rights.n;
        for (int l = levelCount - 1; l >= 0; l--) {
            int start = end - levels[l][1];
            all.addRange(rights, start, end);
            end = start;
        }
        return new MerkleHashSubtree(Arrays.copyOf(all.hashes, 32 * all.n), Arrays.copyOf(all.sizes, all.n),
                Arrays.copyOf(levels, levelCount), atStart, atEnd);
    }

    /**
     * One level: finds the region whose groups are the same whatever lies outside the run (from the start when {@code
     * atStart}, to the end when {@code atEnd}), hashes its groups into {@code promoted}, and returns the counts of the
     * nodes before and after it, which stay on this level.
     */
    private static int[] splitAndPromote(Nodes nodes, boolean atStart, boolean atEnd, Nodes promoted, byte[] text) {
        int n = nodes.n;
        if (n <= 1) return new int[]{n, 0};
        int stableStart = atStart ? 0 : stableStart(nodes, 0, n);
        if (stableStart < 0) return new int[]{n, 0};
        int stableEnd;
        if (atEnd) {
            stableEnd = n;
        } else {
            int e = stableEnd(nodes, stableStart, n);
            if (e < 0) return new int[]{n, 0};
            stableEnd = stableStart + e;
        }
        if (stableStart >= stableEnd) return new int[]{n, 0};
        byte[] parent = new byte[32];
        for (int pos = stableStart; pos < stableEnd; ) {
            int len = nextMergeCut(nodes, pos, stableEnd);
            long size = MerkleBuilder.hashGroup(nodes.hashes, pos, nodes.sizes, pos, len, text, parent, 0);
            promoted.add(parent, 0, size);
            pos += len;
        }
        return new int[]{stableStart, n - stableEnd};
    }

    /** §1.4's group length from {@code from} in a run ending at {@code to}. */
    private static int nextMergeCut(Nodes nodes, int from, int to) {
        int len = to - from;
        if (len <= MerkleBuilder.MIN_GROUP) return len;
        int end = Math.min(MerkleBuilder.MAX_GROUP, len);
        for (int i = MerkleBuilder.MIN_GROUP; i < end; i++) {
            if (nodes.cut(from + i)) return i + 1;
        }
        return end;
    }

    /** Two gaps between cut hashes, each in (MIN_GROUP, MAX_GROUP - 1): no group can straddle the middle cut. */
    private static boolean validGap(int gap) {
        return gap > MerkleBuilder.MIN_GROUP && gap < MerkleBuilder.MAX_GROUP - 1;
    }

    /**
     * The first position of {@code [from, to)} that starts a group whatever precedes it, relative to {@code from}:
     * one past the middle of three consecutive cut hashes with valid gaps; -1 if there is none.
     */
    private static int stableStart(Nodes nodes, int from, int to) {
        if (to - from < MerkleBuilder.MIN_GROUP + 1) return -1;
        int prevPrev = -1;
        int prev = -1;
        for (int i = from; i < to; i++) {
            if (!nodes.cut(i)) continue;
            int c = i - from;
            if (prev >= 0 && validGap(c - prev) && prevPrev >= 0 && validGap(prev - prevPrev)) return prev + 1;
            prevPrev = prev;
            prev = c;
        }
        return -1;
    }

    /** The mirror of {@link #stableStart}, scanning from the end: where the nodes no group can settle begin. */
    private static int stableEnd(Nodes nodes, int from, int to) {
        if (to - from < MerkleBuilder.MIN_GROUP + 1) return -1;
        int nextNext = -1;
        int next = -1;
        for (int i = to - 1; i >= from; i--) {
            if (!nodes.cut(i)) continue;
            int c = i - from;
            if (next >= 0 && validGap(next - c) && nextNext >= 0 && validGap(nextNext - next)) return next + 1;
            nextNext = next;
            next = c;
        }
        return -1;
    }

    public boolean isEmpty() {
        return sizes.length == 0;
    }

    public int nodeCount() {
        return sizes.length;
    }

    public MerkleHash node(int k) {
        return MerkleHash.fromBytes(hashes, 32 * k);
    }

    public long size(int k) {
        return sizes[k];
    }

    public int levelCount() {
        return levels.length;
    }

    /** Nodes at the left edge of level {@code l}. */
    public int left(int l) {
        return levels[l][0];
    }

    /** Nodes at the right edge of level {@code l}. */
    public int right(int l) {
        return levels[l][1];
    }

    public boolean atStart() {
        return atStart;
    }

    public boolean atEnd() {
        return atEnd;
    }

    /** The whole file's aggregated hash when this run is the whole file ({@code atStart} and {@code atEnd}). */
    public MerkleHash root() {
        if (!atStart || !atEnd) throw new IllegalStateException("not a whole file");
        return isEmpty() ? MerkleHash.ZERO : node(0);
    }
}
