package org.openxet.service;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.xorb.ChunkTable;
import org.openxet.service.ReconstructionPlanner.ByteRange;
import org.openxet.service.ReconstructionPlanner.Plan;
import org.openxet.storage.FileRecord;
import org.openxet.storage.Index;
import org.openxet.storage.SqliteIndex;
import org.openxet.testing.IndexCalls;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The fetch descriptors of full-file plans (no index needed: a full file never reads a chunk layout), and ranged plans
 * trimmed with the chunk layouts of a real SQLite index.
 */
class ReconstructionPlannerTest {
    /** Xorb A: 4 chunks of 100 bytes, 60 stored each. Xorb B: 4 chunks of 50 bytes, 30 stored each. */
    private static final MerkleHash A = MerkleHash.ofWords(1, 0, 0, 0);
    private static final MerkleHash B = MerkleHash.ofWords(2, 0, 0, 0);
    /** Term 0: A's chunks [0, 4), file bytes [0, 400); term 1: B's [0, 2), [400, 500); term 2: B's [2, 4), [500, 600). */
    static final FileRecord FILE = new FileRecord(MerkleHash.ofWords(3, 0, 0, 0), 600, new MerkleHash[]{A, B},
            terms(new int[]{0, 0, 4, 400, 0, 240}, new int[]{1, 0, 2, 100, 0, 60}, new int[]{1, 2, 4, 100, 60, 120}),
            null);

    @Test
    void aRangeTrimmedAtBothEndsReadsBothLayoutsInOneIndexCall(@TempDir Path dir) throws Exception {
        try (SqliteIndex sqlite = new SqliteIndex(dir.resolve("i.sqlite"), 1)) {
            List<String> calls = new ArrayList<>();
            ReconstructionPlanner planner = new ReconstructionPlanner(layoutsOfAandB(sqlite, calls));
            // From inside A's chunk 1 (file bytes [100, 200)) to inside B's chunk 2 ([500, 550)).
            Plan p = planner.plan(FILE, new ByteRange(150, 549, false));
            assertEquals(List.of("xorbs"), calls);
            assertEquals(List.of(50L, 0, 3, 1, 60, 300, 3, 90, 50), trimmed(p));
        }
    }

    @Test
    void aRangeInsideOneTermReadsItsLayoutOnce(@TempDir Path dir) throws Exception {
        try (SqliteIndex sqlite = new SqliteIndex(dir.resolve("i.sqlite"), 1)) {
            List<String> calls = new ArrayList<>();
            ReconstructionPlanner planner = new ReconstructionPlanner(layoutsOfAandB(sqlite, calls));
            // File bytes [150, 250): A's chunks 1 and 2, 50 bytes into chunk 1.
            Plan p = planner.plan(FILE, new ByteRange(150, 249, false));
            assertEquals(List.of("xorbs"), calls);
            assertEquals(List.of(50L, 0, 1, 1, 60, 200, 3, 180, 200), trimmed(p));
            // A range on term boundaries trims nothing and reads no layout.
            calls.clear();
            planner.plan(FILE, new ByteRange(400, 499, false));
            assertEquals(List.of(), calls);
        }
    }

    /** A plan's trimming: offset into the first range, terms, first and last term's chunk, byte and unpacked bounds. */
    private static List<Number> trimmed(Plan p) {
        return List.of(p.offsetIntoFirstRange(), p.firstTerm(), p.endTerm(), p.firstChunkStart(), p.firstByteStart(),
                p.firstUnpacked(), p.lastChunkEnd(), p.lastByteEnd(), p.lastUnpacked());
    }

    /** {@code sqlite} holding xorbs A and B, seen through a view that records the name of each xorb lookup made. */
    static Index layoutsOfAandB(SqliteIndex sqlite, List<String> calls) throws Exception {
        sqlite.putXorb(A, new ChunkTable(4, new byte[4 * 32], new int[]{60, 120, 180, 240},
                new int[]{100, 200, 300, 400}), 240);
        sqlite.putXorb(B, new ChunkTable(4, new byte[4 * 32], new int[]{30, 60, 90, 120},
                new int[]{50, 100, 150, 200}), 120);
        return IndexCalls.recording(sqlite, "xorb", calls);
    }

    /** A record's terms from rows of (xorb, chunk start, chunk end, unpacked, byte start, byte end). */
    private static int[] terms(int[]... rows) {
        int[] terms = new int[rows.length * FileRecord.TERM_INTS];
        for (int t = 0; t < rows.length; t++) {
            int o = t * FileRecord.TERM_INTS;
            terms[o + FileRecord.XORB] = rows[t][0];
            terms[o + FileRecord.CHUNK_START] = rows[t][1];
            terms[o + FileRecord.CHUNK_END] = rows[t][2];
            terms[o + FileRecord.UNPACKED] = rows[t][3];
            terms[o + FileRecord.BYTE_START] = rows[t][4];
            terms[o + FileRecord.BYTE_END] = rows[t][5];
        }
        return terms;
    }

    @Test
    void touchingAndOverlappingRangesMergeAndTheRestSortByChunkStart() {
        int[] d = {
                20, 30, 2000, 3000,
                0, 10, 0, 1000,
                10, 15, 1000, 1500, // touches [0, 10)
                25, 40, 2500, 4000, // overlaps [20, 30), extends it
                22, 28, 2200, 2800, // inside [20, 40)
                50, 60, 5000, 6000};
        assertArrayEquals(new int[]{0, 15, 0, 1500, 20, 40, 2000, 4000, 50, 60, 5000, 6000},
                ReconstructionPlanner.mergeDescriptors(d));
        // Already sorted (the fast path) gives the same as sorting.
        assertArrayEquals(new int[]{0, 15, 0, 1500, 20, 40, 2000, 4000, 50, 60, 5000, 6000},
                ReconstructionPlanner.mergeDescriptors(new int[]{0, 10, 0, 1000, 10, 15, 1000, 1500, 20, 30, 2000, 3000,
                        22, 28, 2200, 2800, 25, 40, 2500, 4000, 50, 60, 5000, 6000}));
    }

    @Test
    void fullFilePlansMatchAPlainSortAndMergePerXorb() throws Exception {
        SplittableRandom random = new SplittableRandom(11);
        for (int round = 0; round < 300; round++) {
            int xorbs = 1 + random.nextInt(20);
            int n = 1 + random.nextInt(400);
            MerkleHash[] hashes = new MerkleHash[xorbs];
            for (int x = 0; x < xorbs; x++) hashes[x] = MerkleHash.ofWords(round, x, 0, 0);
            int[] terms = new int[n * FileRecord.TERM_INTS];
            long size = 0;
            for (int t = 0; t < n; t++) {
                int o = t * FileRecord.TERM_INTS;
                // Few xorbs and short chunk spans make overlaps, touches and repeats common; some rounds keep order.
                int start = round % 3 == 0 ? t : random.nextInt(60);
                int end = start + 1 + random.nextInt(4);
                terms[o + FileRecord.XORB] = round % 5 == 0 ? t % xorbs : random.nextInt(xorbs);
                terms[o + FileRecord.CHUNK_START] = start;
                terms[o + FileRecord.CHUNK_END] = end;
                terms[o + FileRecord.UNPACKED] = 100 * (end - start);
                terms[o + FileRecord.BYTE_START] = 64 * start;
                terms[o + FileRecord.BYTE_END] = 64 * end;
                size += 100L * (end - start);
            }
            FileRecord file = new FileRecord(MerkleHash.ofWords(round, 1, 2, 3), size, hashes, terms, null);
            Plan plan = new ReconstructionPlanner(null).plan(file, null);
            List<Integer> seen = new ArrayList<>();
            for (int t = 0; t < n; t++) {
                int x = terms[t * FileRecord.TERM_INTS + FileRecord.XORB];
                if (!seen.contains(x)) seen.add(x);
            }
            assertArrayEquals(seen.stream().mapToInt(Integer::intValue).toArray(), plan.xorbOrder());
            for (int x : seen) {
                assertArrayEquals(reference(terms, n, x), plan.fetch()[x], "round " + round + " xorb " + x);
            }
        }
    }

    /** What step 4 says, written plainly: the xorb's ranges in term order, stably sorted by chunk start, merged. */
    private static int[] reference(int[] terms, int n, int xorb) {
        List<int[]> ranges = new ArrayList<>();
        for (int t = 0; t < n; t++) {
            int o = t * FileRecord.TERM_INTS;
            if (terms[o + FileRecord.XORB] == xorb) {
                ranges.add(new int[]{terms[o + FileRecord.CHUNK_START], terms[o + FileRecord.CHUNK_END],
                        terms[o + FileRecord.BYTE_START], terms[o + FileRecord.BYTE_END]});
            }
        }
        ranges.sort(Comparator.comparingInt(r -> r[0]));
        List<int[]> out = new ArrayList<>();
        for (int[] r : ranges) {
            int[] last = out.isEmpty() ? null : out.getLast();
            if (last != null && r[0] <= last[1]) {
                if (r[1] > last[1]) {
                    last[1] = r[1];
                    last[3] = r[3];
                }
            } else {
                out.add(r.clone());
            }
        }
        return out.stream().flatMapToInt(java.util.Arrays::stream).toArray();
    }
}
