package org.openxet.service;

import org.openxet.protocol.Chunker;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.MerkleHashSubtree;
import org.openxet.protocol.XetHashes;
import org.openxet.protocol.xorb.ChunkTable;
import org.openxet.storage.FileRecord;
import org.openxet.storage.Index;
import org.openxet.storage.IndexException;
import org.openxet.storage.XorbLayout;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * §5.9 {@code GET /v2/file-chunk-hashes}: what a client editing part of a file needs to upload only the edit (the
 * range-upload API, which the JS client's {@code edit} operation uses). Given the byte ranges it will change, the
 * answer names the windows of the original to re-chunk (each dirty range widened to chunk boundaries, and past its end
 * until two consecutive chunks of stable size, where a re-chunking of the edited bytes is back in step with the
 * original), the partial merkle trees of the untouched gaps before, between and after them, and the verification
 * hashes of the terms that lie wholly in the gaps. Mirrors the server logic xet-core keeps in
 * {@code chunk_window_builder.rs}; the chunk hashes come from the xorb layouts in the index, no blob is read.
 */
public final class FileChunkHashes {
    private final Index index;

    public FileChunkHashes(Index index) {
        this.index = index;
    }

    /** A byte range {@code [start, end)} of the original file. */
    public record Range(long start, long end) {
    }

    /** The answer: {@code hashRanges} has one entry more than {@code windows}; an empty gap is null. */
    public record Answer(long totalChunks, long fileSize, List<Range> windows, List<MerkleHashSubtree> hashRanges,
                         List<MerkleHash> gapVerification) {
    }

    /** The dirty ranges select nothing of the file (the client then falls back to reading the original). */
    public static final class NothingDirty extends Exception {
        public NothingDirty(String message) {
            super(message);
        }
    }

    /** A chunk that can end a window: a re-chunking that reaches two such in a row agrees with the original again. */
    static boolean stableSize(long size) {
        return size >= 2L * Chunker.MIN_CHUNK && size < Chunker.MAX_CHUNK - Chunker.MIN_CHUNK;
    }

    /**
     * The chunk table of each xorb the file names, by its index in {@code file.xorbs()}, from one index call: on
     * PostgreSQL a lookup is a statement and a round trip, and a 100,000-term file names about 1,000 xorbs.
     */
    private ChunkTable[] layouts(FileRecord file) throws IndexException {
        MerkleHash[] xorbs = file.xorbs();
        Map<MerkleHash, XorbLayout> found = index.xorbs(Arrays.asList(xorbs));
        ChunkTable[] layouts = new ChunkTable[xorbs.length];
        for (int x = 0; x < xorbs.length; x++) layouts[x] = ReconstructionPlanner.chunksOf(found, xorbs[x], file);
        return layouts;
    }

    public Answer answer(FileRecord file, List<Range> dirty) throws IndexException, NothingDirty {
        long size = file.size();
        List<Range> ranges = clip(dirty, size);
        if (ranges.isEmpty()) {
            throw new NothingDirty("no dirty range lies inside the file's " + size + " bytes");
        }
        int n = file.termCount();
        ChunkTable[] layouts = layouts(file);
        Windows windows = new Windows(ranges);
        long[] termStarts = new long[n + 1];
        MerkleHash[] verification = new MerkleHash[n];
        long end = 0;
        long chunks = 0;
        for (int t = 0; t < n; t++) {
            ChunkTable c = layouts[file.term(t, FileRecord.XORB)];
            int a = file.term(t, FileRecord.CHUNK_START);
            int b = file.term(t, FileRecord.CHUNK_END);
            for (int k = a; k < b; k++) {
                long chunkSize = c.unpackedLength(k);
                end += chunkSize;
                windows.chunk(c.hashes(), 32 * k, chunkSize, end);
            }
            chunks += b - a;
            termStarts[t + 1] = end;
            verification[t] = XetHashes.verificationHash(c.hashes(), a, b);
        }
        windows.finish();
        if (windows.windows.isEmpty()) {
            throw new NothingDirty("the dirty ranges overlap no chunk of the file");
        }
        // The terms no window touches keep their verification hashes; both lists are in file order.
        List<MerkleHash> gapVerification = new ArrayList<>();
        int w = 0;
        for (int t = 0; t < n; t++) {
            while (w < windows.windows.size() && windows.windows.get(w).end() <= termStarts[t]) w++;
            boolean touched = w < windows.windows.size() && windows.windows.get(w).start() < termStarts[t + 1];
            if (!touched) gapVerification.add(verification[t]);
        }
        return new Answer(chunks, size, windows.windows, windows.gaps, gapVerification);
    }

    /** Ranges cut to the file, empty ones dropped, sorted, overlapping ones joined. */
    private static List<Range> clip(List<Range> dirty, long size) {
        List<Range> kept = new ArrayList<>();
        for (Range r : dirty) {
            long e = Math.min(r.end(), size);
            if (r.start() < e && r.start() < size) kept.add(new Range(r.start(), e));
        }
        kept.sort(Comparator.comparingLong(Range::start));
        List<Range> out = new ArrayList<>();
        for (Range r : kept) {
            Range last = out.isEmpty() ? null : out.getLast();
            if (last != null && r.start() < last.end()) {
                out.set(out.size() - 1, new Range(last.start(), Math.max(last.end(), r.end())));
            } else {
                out.add(r);
            }
        }
        return out;
    }

    /** The chunk-by-chunk state machine: gaps collect chunks, a chunk touching a dirty range opens or extends a window. */
    private static final class Windows {
        final List<Range> dirty;
        final List<Range> windows = new ArrayList<>();
        final List<MerkleHashSubtree> gaps = new ArrayList<>();
        int next;
        boolean inWindow;
        boolean gapAtStart = true;
        long cursor;
        /** Size of the previous clean chunk while an open window extends past its dirty range; -1 for none. */
        long previousClean = -1;
        final MerkleHashSubtree.Nodes gap = new MerkleHashSubtree.Nodes();

        Windows(List<Range> dirty) {
            this.dirty = dirty;
        }

        void chunk(byte[] hashes, int offset, long size, long chunkEnd) {
            long chunkStart = cursor;
            boolean overlaps = overlaps(next, chunkStart, chunkEnd);
            if (!inWindow) {
                if (overlaps) {
                    open(chunkEnd);
                    inWindow = true;
                    previousClean = -1;
                } else {
                    gap.add(hashes, offset, size);
                }
            } else if (overlaps || overlaps(next + 1, chunkStart, chunkEnd)) {
                if (!overlaps) next++;
                extend(chunkEnd);
                skipCovered(chunkEnd);
                previousClean = -1;
            } else {
                // Past the dirty range: the window goes on until two consecutive chunks of stable size.
                extend(chunkEnd);
                boolean stable = previousClean >= 0 && stableSize(previousClean) && stableSize(size);
                previousClean = size;
                if (stable) {
                    next++;
                    gapAtStart = false;
                    inWindow = false;
                    previousClean = -1;
                }
            }
            cursor = chunkEnd;
        }

        void finish() {
            gaps.add(tree(true));
        }

        private void open(long chunkEnd) {
            gaps.add(tree(false));
            gap.clear();
            windows.add(new Range(cursor, chunkEnd));
            skipCovered(chunkEnd);
        }

        private void extend(long chunkEnd) {
            windows.set(windows.size() - 1, new Range(windows.getLast().start(), chunkEnd));
        }

        /** Dirty ranges that start before {@code chunkEnd} are inside the open window already. */
        private void skipCovered(long chunkEnd) {
            while (next + 1 < dirty.size() && chunkEnd > dirty.get(next + 1).start()) next++;
        }

        private boolean overlaps(int i, long start, long end) {
            return i < dirty.size() && end > dirty.get(i).start() && start < dirty.get(i).end();
        }

        private MerkleHashSubtree tree(boolean atEnd) {
            MerkleHashSubtree g = MerkleHashSubtree.fromChunks(gapAtStart, gap, atEnd);
            return g.isEmpty() ? null : g;
        }
    }
}
