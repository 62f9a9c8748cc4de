package org.openxet.service;

import org.junit.jupiter.api.Test;
import org.openxet.protocol.FormatException;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.XetHashes;
import org.openxet.protocol.shard.FileEntry;
import org.openxet.protocol.shard.FileTerm;
import org.openxet.protocol.shard.Shard;
import org.openxet.protocol.shard.ShardHeader;
import org.openxet.protocol.xorb.ChunkTable;
import org.openxet.storage.XorbLayout;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ShardValidationTest {
    static final int CHUNKS = 8192;

    /** A stored xorb of 8,192 chunks of 1,000..1,999 bytes with random hashes (layout only; no bytes needed). */
    static XorbLayout xorb(SplittableRandom r) {
        byte[] hashes = new byte[32 * CHUNKS];
        for (int i = 0; i < hashes.length; i++) hashes[i] = (byte) r.nextInt(256);
        int[] byteEnds = new int[CHUNKS];
        int[] unpackedEnds = new int[CHUNKS];
        int b = 0;
        int u = 0;
        for (int k = 0; k < CHUNKS; k++) {
            int len = 1000 + r.nextInt(1000);
            u += len;
            b += 8 + len;
            byteEnds[k] = b;
            unpackedEnds[k] = u;
        }
        ChunkTable t = new ChunkTable(CHUNKS, hashes, byteEnds, unpackedEnds);
        return new XorbLayout(XetHashes.merkleRoot(hashes, t.chunkSizes(), CHUNKS), t, b);
    }

    static Shard shardOf(FileEntry f) {
        return new Shard(new ShardHeader(ShardHeader.VERSION, 0), List.of(f), List.of(), null); // hf_xet's footer-less shape
    }

    static long allocatedByThisThread() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    /** A file naming the whole test xorb {@code terms} times over, with its verification hashes. */
    static FileEntry wholeXorbFile(XorbLayout x, int terms, MerkleHash fileHash) {
        FileTerm whole = new FileTerm(x.hash(), 0, (int) x.chunks().unpackedBytes(), 0, CHUNKS);
        MerkleHash verification = XetHashes.verificationHash(x.chunks().hashes(), 0, CHUNKS);
        return new FileEntry(fileHash, FileEntry.FLAG_WITH_VERIFICATION, Collections.nCopies(terms, whole),
                Collections.nCopies(terms, verification), null);
    }

    /** Child JVM: validates the file of {@code args[0]} whole-xorb terms whose file hash is {@code args[1]}. */
    public static final class HugeFile {
        public static void main(String[] args) throws Exception {
            XorbLayout x = xorb(new SplittableRandom(1));
            FileEntry f = wholeXorbFile(x, Integer.parseInt(args[0]), MerkleHash.parse(args[1]));
            var commit = ShardValidation.validate(shardOf(f), Map.of(x.hash(), x), MerkleHash.ZERO, "a/b", 0, (d, n) -> { });
            System.out.println("validated " + commit.files().get(0).fileHash().hex() + " " + commit.files().get(0).size());
        }
    }

    @Test
    void aFileOfMillionsOfChunksValidatesInAHeapSmallerThanItsChunkList() throws Exception {
        XorbLayout x = xorb(new SplittableRandom(1));
        int terms = 200; // 1,638,400 chunks: their hashes alone are 52 MB, more than the child's whole heap
        byte[] raw = new byte[32 * CHUNKS * terms];
        long[] sizes = new long[CHUNKS * terms];
        for (int t = 0; t < terms; t++) {
            System.arraycopy(x.chunks().hashes(), 0, raw, 32 * CHUNKS * t, 32 * CHUNKS);
            System.arraycopy(x.chunks().chunkSizes(), 0, sizes, CHUNKS * t, CHUNKS);
        }
        MerkleHash fileHash = XetHashes.fileHash(raw, sizes, sizes.length);

        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx40m",
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path")));
        String nativeDir = System.getProperty("openxet.native.dir");
        if (nativeDir != null) cmd.add("-Dopenxet.native.dir=" + nativeDir);
        cmd.addAll(List.of(HugeFile.class.getName(), Integer.toString(terms), fileHash.hex()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        assertEquals("validated " + fileHash.hex() + " " + terms * x.chunks().unpackedBytes(), out.strip());
    }

    @Test
    void termRangesAreCheckedBeforeAnythingIsSizedByThemAndNeverOverflow() {
        XorbLayout x = xorb(new SplittableRandom(2));
        MerkleHash v = XetHashes.verificationHash(x.chunks().hashes(), 0, CHUNKS);
        for (int end : new int[]{33_000_000, Integer.MAX_VALUE}) {
            FileTerm huge = new FileTerm(x.hash(), 0, 1, 0, end);
            FileEntry f = new FileEntry(MerkleHash.ofWords(1, 2, 3, 4), FileEntry.FLAG_WITH_VERIFICATION,
                    List.of(huge, huge), List.of(v, v), null);
            long before = allocatedByThisThread();
            FormatException e = assertThrows(FormatException.class, () -> ShardValidation.validate(shardOf(f),
                    Map.of(x.hash(), x), MerkleHash.ZERO, "a/b", 0, (d, n) -> { }));
            long allocated = allocatedByThisThread() - before;
            assertTrue(e.getMessage().contains("outside xorb"), e.getMessage());
            assertTrue(allocated < 1L << 20, "rejecting allocated " + allocated + " bytes");
        }
    }

    @Test
    void aShardNamingMoreChunksThanTheBoundIsRefusedBeforeAnyIsHashed() {
        XorbLayout x = xorb(new SplittableRandom(3));
        int terms = (int) (ShardValidation.MAX_CHUNK_REFERENCES / CHUNKS) + 1; // 4,097 whole-xorb terms
        FileEntry f = wholeXorbFile(x, terms, MerkleHash.ofWords(5, 6, 7, 8));
        List<Long> progress = new ArrayList<>();
        FormatException e = assertThrows(FormatException.class, () -> ShardValidation.validate(shardOf(f),
                Map.of(x.hash(), x), MerkleHash.ZERO, "a/b", 0, (d, n) -> progress.add(d)));
        assertEquals("the shard's terms name more than 33554432 chunks in all; split the upload into several shards",
                e.getMessage());
        assertTrue(progress.isEmpty(), "no file was validated");
    }
}
