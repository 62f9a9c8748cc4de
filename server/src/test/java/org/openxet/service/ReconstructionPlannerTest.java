package org.openxet.service;

import org.junit.jupiter.api.Test;
import org.openxet.protocol.MerkleHash;
import org.openxet.service.ReconstructionPlanner.Plan;
import org.openxet.storage.FileRecord;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/** The fetch descriptors of full-file plans (no index needed: a full file never reads a chunk layout). */
class ReconstructionPlannerTest {
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
