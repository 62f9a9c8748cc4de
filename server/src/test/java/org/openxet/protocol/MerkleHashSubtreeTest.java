package org.openxet.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.openxet.testing.Vectors;

import java.io.IOException;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Trees the client library made ({@code testdata/merkle-subtree/vectors.json}, written by
 * {@code tests/interop/subtree-vectors.mjs} with {@code @huggingface/xetchunk-wasm}, the TypeScript port of xet-core's
 * {@code MerkleHashSubtree}), rebuilt here node for node, and a whole file's tree against the §1.4 root.
 */
class MerkleHashSubtreeTest {
    private static final int N = 3000;

    @Test
    void treesEqualTheClientLibrarysNodeForNode() throws IOException {
        JsonNode v = new ObjectMapper().readTree(Vectors.dir().resolveSibling("merkle-subtree").resolve("vectors.json")
                .toFile());
        byte[] hashes = Vectors.splitmix(2026, 32 * N);
        byte[] sizeBytes = Vectors.splitmix(11, 4 * N);
        long[] sizes = new long[N];
        for (int i = 0; i < N; i++) {
            int word = (sizeBytes[4 * i] & 0xFF) | (sizeBytes[4 * i + 1] & 0xFF) << 8 | (sizeBytes[4 * i + 2] & 0xFF) << 16;
            sizes[i] = 8192 + word % (131072 - 8192);
        }
        // The same leaves as the generator's (or nothing below proves anything).
        assertEquals(v.get("first_chunk").get("hash").asText(), MerkleHash.fromBytes(hashes, 0).hex());
        assertEquals(v.get("first_chunk").get("size").asLong(), sizes[0]);
        assertEquals(v.get("last_chunk").get("hash").asText(), MerkleHash.fromBytes(hashes, 32 * (N - 1)).hex());
        assertEquals(v.get("last_chunk").get("size").asLong(), sizes[N - 1]);
        for (JsonNode c : v.get("cases")) {
            int from = c.get("from").asInt();
            int to = c.get("to").asInt();
            byte[] run = java.util.Arrays.copyOfRange(hashes, 32 * from, 32 * to);
            long[] runSizes = java.util.Arrays.copyOfRange(sizes, from, to);
            MerkleHashSubtree t = MerkleHashSubtree.fromChunks(c.get("at_start").asBoolean(), run, runSizes, to - from,
                    c.get("at_end").asBoolean());
            JsonNode want = c.get("subtree");
            String what = "chunks [" + from + ", " + to + ") " + c.get("at_start") + "/" + c.get("at_end");
            assertEquals(want.get("levels").size(), t.levelCount(), what + ": levels");
            for (int l = 0; l < t.levelCount(); l++) {
                assertEquals(want.get("levels").get(l).get(0).asInt(), t.left(l), what + ": level " + l + " left");
                assertEquals(want.get("levels").get(l).get(1).asInt(), t.right(l), what + ": level " + l + " right");
            }
            assertEquals(want.get("nodes").size(), t.nodeCount(), what + ": nodes");
            for (int k = 0; k < t.nodeCount(); k++) {
                assertEquals(want.get("nodes").get(k).get("hash").asText(), t.node(k).hex(), what + ": node " + k);
                assertEquals(want.get("nodes").get(k).get("size").asLong(), t.size(k), what + ": node " + k + " size");
            }
            assertEquals(want.get("at_start").asBoolean(), t.atStart());
            assertEquals(want.get("at_end").asBoolean(), t.atEnd());
        }
    }

    @Test
    void aWholeFilesTreeIsItsAggregatedHash() {
        SplittableRandom r = new SplittableRandom(5);
        for (int n : new int[]{0, 1, 2, 3, 9, 10, 100, 1000, 4321}) {
            byte[] hashes = new byte[32 * n];
            r.nextBytes(hashes);
            long[] sizes = new long[n];
            for (int i = 0; i < n; i++) sizes[i] = 1 + r.nextInt(131072);
            MerkleHashSubtree t = MerkleHashSubtree.fromChunks(true, hashes, sizes, n, true);
            assertEquals(XetHashes.merkleRoot(hashes, sizes, n), t.root(), n + " chunks");
            assertEquals(n == 0 ? 0 : 1, t.nodeCount(), n + " chunks: one node left, the root");
        }
    }
}
