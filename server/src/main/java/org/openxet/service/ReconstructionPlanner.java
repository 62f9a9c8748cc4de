package org.openxet.service;

import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.xorb.ChunkTable;
import org.openxet.storage.FileRecord;
import org.openxet.storage.Index;
import org.openxet.storage.IndexException;
import org.openxet.storage.XorbLayout;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Plans a reconstruction (§5.4 steps 2–5) from the index alone: the file's packed terms already carry each term's
 * stored byte range, so a full-file plan reads one row; a range plan also reads the chunk layouts of the (at most two)
 * xorbs whose terms it trims. No blob is ever read.
 */
public final class ReconstructionPlanner {
    private final Index index;

    public ReconstructionPlanner(Index index) {
        this.index = index;
    }

    /** A requested byte range: {@code [start, endInclusive]}; {@code suffix} for {@code bytes=-N}. */
    public record ByteRange(long start, long endInclusive, boolean suffix) {
        public static final long OPEN = Long.MAX_VALUE;
    }

    /** Why a plan cannot be made. */
    public static final class NotSatisfiable extends Exception {
        public NotSatisfiable(String message) {
            super(message);
        }
    }

    /**
     * A plan: terms {@code [firstTerm, endTerm)} of {@code file} with the first and last trimmed, and per xorb the
     * merged fetch descriptors, packed as {@link FetchDescriptors} reads them.
     */
    public record Plan(FileRecord file, long offsetIntoFirstRange, int firstTerm, int endTerm,
                       int firstChunkStart, int firstByteStart, int firstUnpacked,
                       int lastChunkEnd, int lastByteEnd, int lastUnpacked,
                       int[] xorbOrder, int[][] fetch) {

        public int termCount() {
            return endTerm - firstTerm;
        }

        /** Chunk start of term {@code t} after trimming. */
        public int chunkStart(int t) {
            return t == firstTerm ? firstChunkStart : file.term(t, FileRecord.CHUNK_START);
        }

        public int chunkEnd(int t) {
            return t == endTerm - 1 ? lastChunkEnd : file.term(t, FileRecord.CHUNK_END);
        }

        public int byteStart(int t) {
            return t == firstTerm ? firstByteStart : file.term(t, FileRecord.BYTE_START);
        }

        public int byteEnd(int t) {
            return t == endTerm - 1 ? lastByteEnd : file.term(t, FileRecord.BYTE_END);
        }

        /** Uncompressed length of term {@code t} after trimming. */
        public long unpacked(int t) {
            // With a single term, firstUnpacked and lastUnpacked both hold its doubly trimmed length.
            if (t == firstTerm) return Integer.toUnsignedLong(firstUnpacked);
            if (t == endTerm - 1) return Integer.toUnsignedLong(lastUnpacked);
            return Integer.toUnsignedLong(file.term(t, FileRecord.UNPACKED));
        }

        public MerkleHash xorb(int t) {
            return file.xorbs()[file.term(t, FileRecord.XORB)];
        }
    }

    public Optional<FileRecord> file(MerkleHash fileHash, String scope) throws IndexException {
        return index.file(fileHash, scope);
    }

    /** Plans {@code range} of {@code file} (null = the whole file). Empty plan for an empty selection. */
    public Plan plan(FileRecord file, ByteRange range) throws NotSatisfiable, IndexException {
        long size = file.size();
        long start;
        long endExclusive;
        if (range == null) {
            start = 0;
            endExclusive = size;
        } else if (range.suffix()) {
            if (range.endInclusive() == 0) throw new NotSatisfiable("empty suffix range");
            start = Math.max(0, size - range.endInclusive());
            endExclusive = size;
            if (size == 0) return empty(file);
        } else {
            start = range.start();
            if (size == 0 && start == 0) return empty(file);
            if (start >= size) {
                throw new NotSatisfiable("range starts at " + start + ", the file has " + size + " bytes");
            }
            if (range.endInclusive() < start) throw new NotSatisfiable("range ends before it starts");
            endExclusive = range.endInclusive() == ByteRange.OPEN ? size : Math.min(size, range.endInclusive() + 1);
        }
        int n = file.termCount();
        if (n == 0 || endExclusive <= start) {
            return empty(file);
        }
        // Find the first term ending after `start` and the last term starting before `endExclusive`.
        long offset = 0;
        int first = -1;
        long firstOffset = 0;
        int last = -1;
        long lastOffset = 0;
        for (int t = 0; t < n; t++) {
            long len = Integer.toUnsignedLong(file.term(t, FileRecord.UNPACKED));
            if (first < 0 && offset + len > start) {
                first = t;
                firstOffset = offset;
            }
            if (offset < endExclusive) {
                last = t;
                lastOffset = offset;
            } else {
                break;
            }
            offset += len;
        }
        int firstChunkStart = file.term(first, FileRecord.CHUNK_START);
        int firstByteStart = file.term(first, FileRecord.BYTE_START);
        int lastChunkEnd = file.term(last, FileRecord.CHUNK_END);
        int lastByteEnd = file.term(last, FileRecord.BYTE_END);
        long offsetInto = 0;
        long firstTrimmedStart = firstOffset; // file offset where the kept part of the first term begins
        boolean trimFirst = start > firstOffset;
        long lastTermEnd = lastOffset + Integer.toUnsignedLong(file.term(last, FileRecord.UNPACKED));
        boolean trimLast = endExclusive < lastTermEnd;
        // The trimmed terms' chunk tables, read once and in one index call: each lookup is a round trip on
        // PostgreSQL, and a ranged read that trims both ends used to make up to four.
        List<MerkleHash> wanted = new ArrayList<>(2);
        if (trimFirst) wanted.add(xorbOf(file, first));
        if (trimLast) wanted.add(xorbOf(file, last));
        Map<MerkleHash, XorbLayout> trimmed = wanted.isEmpty() ? Map.of() : index.xorbs(wanted);
        ChunkTable firstChunks = trimFirst ? chunks(trimmed, file, first) : null;
        ChunkTable lastChunks = trimLast ? chunks(trimmed, file, last) : null;
        if (trimFirst) {
            ChunkTable c = firstChunks;
            int a = file.term(first, FileRecord.CHUNK_START);
            int b = file.term(first, FileRecord.CHUNK_END);
            long base = c.unpackedStart(a);
            int k = a;
            // Drop leading chunks that end at or before `start`.
            while (k < b - 1 && firstOffset + (Integer.toUnsignedLong(c.unpackedEnds()[k]) - base) <= start) {
                k++;
            }
            firstChunkStart = k;
            firstByteStart = c.byteStart(k);
            firstTrimmedStart = firstOffset + (c.unpackedStart(k) - base);
            offsetInto = start - firstTrimmedStart;
        }
        if (trimLast) {
            ChunkTable c = lastChunks;
            int a = file.term(last, FileRecord.CHUNK_START);
            int b = file.term(last, FileRecord.CHUNK_END);
            long base = c.unpackedStart(a);
            int k = b - 1;
            // Drop trailing chunks that start at or after the end.
            while (k > a && lastOffset + (c.unpackedStart(k) - base) >= endExclusive) {
                k--;
            }
            lastChunkEnd = k + 1;
            lastByteEnd = c.byteEnds()[k];
        }
        int firstUnpacked;
        int lastUnpacked;
        if (first == last) {
            ChunkTable c = trimFirst ? firstChunks : lastChunks;
            long len = c == null ? Integer.toUnsignedLong(file.term(first, FileRecord.UNPACKED))
                    : c.unpackedLength(firstChunkStart, lastChunkEnd);
            firstUnpacked = (int) len;
            lastUnpacked = (int) len;
        } else {
            firstUnpacked = trimFirst ? (int) firstChunks.unpackedLength(firstChunkStart,
                    file.term(first, FileRecord.CHUNK_END)) : file.term(first, FileRecord.UNPACKED);
            lastUnpacked = trimLast ? (int) lastChunks.unpackedLength(file.term(last, FileRecord.CHUNK_START),
                    lastChunkEnd) : file.term(last, FileRecord.UNPACKED);
        }
        Plan partial = new Plan(file, offsetInto, first, last + 1, firstChunkStart, firstByteStart, firstUnpacked,
                lastChunkEnd, lastByteEnd, lastUnpacked, null, null);
        return withFetch(partial);
    }

    private static MerkleHash xorbOf(FileRecord file, int term) {
        return file.xorbs()[file.term(term, FileRecord.XORB)];
    }

    private static ChunkTable chunks(Map<MerkleHash, XorbLayout> layouts, FileRecord file, int term)
            throws IndexException {
        return chunksOf(layouts, xorbOf(file, term), file);
    }

    /** {@code xorb}'s chunk table among {@code layouts} (an {@link Index#xorbs} answer), which must hold it. */
    static ChunkTable chunksOf(Map<MerkleHash, XorbLayout> layouts, MerkleHash xorb, FileRecord file)
            throws IndexException {
        XorbLayout l = layouts.get(xorb);
        if (l == null) throw new IndexException("xorb " + xorb + " of file " + file.fileHash() + " is not in the index", null);
        return l.chunks();
    }

    private static Plan empty(FileRecord file) {
        return new Plan(file, 0, 0, 0, 0, 0, 0, 0, 0, 0, new int[0], new int[0][]);
    }

    /**
     * §5.4 step 4: per xorb, the kept ranges sorted by chunk start and merged when they overlap or touch. Scratch is
     * sized by the largest xorb group, not the file: a 100,000-term plan allocated 4–5.7 MB when every descriptor went
     * through file-sized arrays first, and the young collector's pauses land in the answers' tail.
     */
    static Plan withFetch(Plan p) {
        FileRecord f = p.file();
        int xorbs = f.xorbs().length;
        int[] count = new int[xorbs];
        int[] order = new int[xorbs];
        int distinct = 0;
        for (int t = p.firstTerm(); t < p.endTerm(); t++) {
            int x = f.term(t, FileRecord.XORB);
            if (count[x]++ == 0) order[distinct++] = x;
        }
        // The kept terms grouped by xorb (term order inside a group).
        int[] offsetOf = new int[xorbs + 1];
        int largest = 0;
        for (int x = 0; x < xorbs; x++) {
            offsetOf[x + 1] = offsetOf[x] + count[x];
            largest = Math.max(largest, count[x]);
        }
        int[] fill = Arrays.copyOf(offsetOf, xorbs);
        int[] grouped = new int[p.termCount()];
        for (int t = p.firstTerm(); t < p.endTerm(); t++) {
            grouped[fill[f.term(t, FileRecord.XORB)]++] = t;
        }
        int[] d = new int[FetchDescriptors.INTS * largest];
        int[] merged = new int[FetchDescriptors.INTS * largest];
        long[] keys = new long[largest];
        int[][] fetch = new int[xorbs][];
        int firstTerm = p.firstTerm();
        int lastTerm = p.endTerm() - 1;
        for (int i = 0; i < distinct; i++) {
            int x = order[i];
            int n = count[x];
            int from = offsetOf[x];
            for (int k = 0; k < n; k++) {
                int t = grouped[from + k];
                if (t == firstTerm || t == lastTerm) {
                    // The plan's first and last terms may be trimmed.
                    FetchDescriptors.set(d, k, p.chunkStart(t), p.chunkEnd(t), p.byteStart(t), p.byteEnd(t));
                } else {
                    FetchDescriptors.set(d, k, f.term(t, FileRecord.CHUNK_START), f.term(t, FileRecord.CHUNK_END),
                            f.term(t, FileRecord.BYTE_START), f.term(t, FileRecord.BYTE_END));
                }
            }
            fetch[x] = mergeDescriptors(d, n, keys, merged);
        }
        return new Plan(f, p.offsetIntoFirstRange(), p.firstTerm(), p.endTerm(), p.firstChunkStart(),
                p.firstByteStart(), p.firstUnpacked(), p.lastChunkEnd(), p.lastByteEnd(), p.lastUnpacked(),
                Arrays.copyOf(order, distinct), fetch);
    }

    /**
     * Sorts descriptors ({@link FetchDescriptors}, all of one xorb) by chunk start, ties in their given order, and
     * merges the ones that overlap or touch (§5.4 step 4).
     */
    public static int[] mergeDescriptors(int[] d) {
        int n = FetchDescriptors.count(d);
        return mergeDescriptors(d, n, new long[n], new int[d.length]);
    }

    /**
     * The same over the first {@code n} descriptors of {@code d}, with {@code keys} (at least n) and {@code merged} (at
     * least {@code INTS * n}) as scratch; returns a new array of exactly the merged descriptors.
     */
    static int[] mergeDescriptors(int[] d, int n, long[] keys, int[] merged) {
        boolean sorted = true;
        for (int k = 1; k < n && sorted; k++) {
            sorted = FetchDescriptors.chunkStart(d, k) >= FetchDescriptors.chunkStart(d, k - 1);
        }
        if (!sorted) {
            // Ties keep their given order: the index breaks them.
            for (int k = 0; k < n; k++) {
                keys[k] = ((long) FetchDescriptors.chunkStart(d, k) << 32) | k;
            }
            Arrays.sort(keys, 0, n);
        }
        int m = 0;
        for (int k = 0; k < n; k++) {
            int j = sorted ? k : (int) keys[k];
            int last = m - 1;
            if (m > 0 && FetchDescriptors.chunkStart(d, j) <= FetchDescriptors.chunkEnd(merged, last)) {
                // Overlapping or touching the previous one: extend it when this one reaches further.
                if (FetchDescriptors.chunkEnd(d, j) > FetchDescriptors.chunkEnd(merged, last)) {
                    FetchDescriptors.set(merged, last, FetchDescriptors.chunkStart(merged, last),
                            FetchDescriptors.chunkEnd(d, j), FetchDescriptors.byteStart(merged, last),
                            FetchDescriptors.byteEnd(d, j));
                }
            } else {
                System.arraycopy(d, FetchDescriptors.INTS * j, merged, FetchDescriptors.INTS * m, FetchDescriptors.INTS);
                m++;
            }
        }
        return Arrays.copyOf(merged, FetchDescriptors.INTS * m);
    }
}
