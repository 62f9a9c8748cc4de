package org.openxet.gates;

import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.xorb.ChunkTable;
import org.openxet.storage.FileRecord;
import org.openxet.storage.Index;
import org.openxet.storage.IndexException;
import org.openxet.storage.ShardCommit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The seed's reconstruction fixture shapes, shared by the latency and load gates and the JMH benches.
 *
 * <p>Xorbs are synthetic: 1,024 chunks each with random chunk hashes and plausible offsets (uncompressed chunks of
 * 24–96 KiB, about 60 MiB a xorb; stored records of an 8-byte header plus 50–100 % of that). Files are built
 * directly as {@link FileRecord}s and registered with {@link Index#putXorb} and {@link Index#registerShard}, the same
 * calls shard registration ends in. What that skips: no xorb object is in the bucket (a reconstruction never reads
 * blobs, so signed URLs point at nothing), no shard body is parsed or validated, and file hashes are random, not the
 * Merkle hash of their chunks (the answer never recomputes them).
 *
 * <p>Shapes, with {@value #TERMS_PER_XORB} terms per xorb, so a file of {@code n} terms uses {@code n / 100} xorbs:
 * <ul>
 *   <li>{@link Shape#UNMERGED}: term {@code t} names xorb {@code t mod X} and chunks {@code [10k, 10k + 9)} with
 *   {@code k = t div X}: consecutive terms name different xorbs and no two terms of a xorb touch in chunk space, so
 *   every term is its own fetch descriptor (100,000 for the seed's 100k-term file).</li>
 *   <li>{@link Shape#MERGED}: term {@code t} names xorb {@code t div 100} and chunks {@code [10k, 10k + 10)} with
 *   {@code k = t mod 100}: each xorb's terms are one adjacent run, one descriptor per xorb (1,000).</li>
 * </ul>
 */
public final class ReconstructionFixtures {
    public static final int CHUNKS_PER_XORB = 1024;
    public static final int TERMS_PER_XORB = 100;
    public static final String SCOPE = "bench/large-files";

    private ReconstructionFixtures() {
    }

    public enum Shape {
        UNMERGED, MERGED;

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Synthetic xorbs: hashes, chunk tables and stored sizes. */
    public record Xorbs(MerkleHash[] hashes, ChunkTable[] tables, long[] storedBytes) {
        public int count() {
            return hashes.length;
        }
    }

    public static MerkleHash randomHash(SplittableRandom r) {
        return MerkleHash.ofWords(r.nextLong(), r.nextLong(), r.nextLong(), r.nextLong());
    }

    /** {@code count} synthetic xorbs of {@value #CHUNKS_PER_XORB} chunks, deterministic in {@code seed}. */
    public static Xorbs xorbs(int count, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        MerkleHash[] hashes = new MerkleHash[count];
        ChunkTable[] tables = new ChunkTable[count];
        long[] stored = new long[count];
        for (int i = 0; i < count; i++) {
            hashes[i] = randomHash(r);
            byte[] chunkHashes = new byte[32 * CHUNKS_PER_XORB];
            r.nextBytes(chunkHashes);
            int[] byteEnds = new int[CHUNKS_PER_XORB];
            int[] unpackedEnds = new int[CHUNKS_PER_XORB];
            int b = 0;
            int u = 0;
            for (int k = 0; k < CHUNKS_PER_XORB; k++) {
                int len = 24 * 1024 + r.nextInt(72 * 1024);
                u += len;
                b += 8 + len / 2 + r.nextInt(len / 2 + 1);
                unpackedEnds[k] = u;
                byteEnds[k] = b;
            }
            tables[i] = new ChunkTable(CHUNKS_PER_XORB, chunkHashes, byteEnds, unpackedEnds);
            stored[i] = b + 48L * CHUNKS_PER_XORB; // records plus a footer of about this size
        }
        return new Xorbs(hashes, tables, stored);
    }

    /**
     * A file of {@code terms} terms (a multiple of {@value #TERMS_PER_XORB}) over {@code terms / 100} consecutive xorbs
     * of {@code xorbs}, starting at {@code firstXorb} (wrapping around).
     */
    public static FileRecord file(Shape shape, int terms, Xorbs xorbs, int firstXorb, MerkleHash fileHash) {
        if (terms <= 0 || terms % TERMS_PER_XORB != 0) {
            throw new IllegalArgumentException("terms must be a positive multiple of " + TERMS_PER_XORB);
        }
        int x = terms / TERMS_PER_XORB;
        if (x > xorbs.count()) {
            throw new IllegalArgumentException(terms + " terms need " + x + " xorbs, the fixture has " + xorbs.count());
        }
        MerkleHash[] refs = new MerkleHash[x];
        ChunkTable[] tables = new ChunkTable[x];
        for (int j = 0; j < x; j++) {
            int g = (firstXorb + j) % xorbs.count();
            refs[j] = xorbs.hashes()[g];
            tables[j] = xorbs.tables()[g];
        }
        int[] packed = new int[terms * FileRecord.TERM_INTS];
        long size = 0;
        for (int t = 0; t < terms; t++) {
            int j;
            int a;
            int b;
            if (shape == Shape.UNMERGED) {
                j = t % x;
                a = 10 * (t / x);
                b = a + 9;
            } else {
                j = t / TERMS_PER_XORB;
                a = 10 * (t % TERMS_PER_XORB);
                b = a + 10;
            }
            ChunkTable c = tables[j];
            int o = t * FileRecord.TERM_INTS;
            int unpacked = (int) c.unpackedLength(a, b);
            packed[o + FileRecord.XORB] = j;
            packed[o + FileRecord.CHUNK_START] = a;
            packed[o + FileRecord.CHUNK_END] = b;
            packed[o + FileRecord.UNPACKED] = unpacked;
            packed[o + FileRecord.BYTE_START] = c.byteStart(a);
            packed[o + FileRecord.BYTE_END] = c.byteEnds()[b - 1];
            size += unpacked;
        }
        return new FileRecord(fileHash, size, refs, packed, null);
    }

    /** Registers every xorb: one {@link Index#putXorb} (one durable transaction) each, as an upload does. */
    public static void registerXorbs(Index index, Xorbs xorbs) throws IndexException {
        for (int i = 0; i < xorbs.count(); i++) {
            index.putXorb(xorbs.hashes()[i], xorbs.tables()[i], xorbs.storedBytes()[i]);
        }
    }

    /**
     * Registers {@code files} under {@code scope} in one {@link Index#registerShard} transaction, as the validated
     * commit of a shard listing their xorbs would: the files' xorbs listed, the first chunk of each file a dedup entry.
     */
    public static void registerFiles(Index index, String scope, List<FileRecord> files, Xorbs xorbs,
                                     MerkleHash shardHash) throws IndexException {
        Map<MerkleHash, ChunkTable> tables = new HashMap<>();
        for (int i = 0; i < xorbs.count(); i++) {
            tables.put(xorbs.hashes()[i], xorbs.tables()[i]);
        }
        List<MerkleHash> listed = new ArrayList<>();
        Set<MerkleHash> seen = new HashSet<>();
        List<ShardCommit.DedupChunk> dedup = new ArrayList<>();
        for (FileRecord f : files) {
            for (MerkleHash x : f.xorbs()) {
                if (seen.add(x)) listed.add(x);
            }
            MerkleHash first = f.xorbs()[f.term(0, FileRecord.XORB)];
            dedup.add(new ShardCommit.DedupChunk(tables.get(first).hash(f.term(0, FileRecord.CHUNK_START)), first));
        }
        index.registerShard(new ShardCommit(shardHash, scope, 0, files, listed, dedup));
    }
}
