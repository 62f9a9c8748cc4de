package org.openxet.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openxet.gates.Files2;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.XetHashes;
import org.openxet.protocol.xorb.ChunkTable;
import org.openxet.storage.BulkLoader;
import org.openxet.storage.FileRecord;
import org.openxet.storage.ShardCommit;
import org.openxet.storage.SqliteIndex;
import org.openxet.storage.XorbLayout;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * What a small file's reconstruction asks the embedded index, one request's worth at a time, on a warm SQLite index
 * of {@code files} small files on disk (the OS page cache warm, as on a node that has been serving): {@code file}
 * is the full-file lookup (the file's row, visible in the token's scope), {@code rangeLayouts} the extra lookup a
 * ranged request makes (the layouts of its two end xorbs). Files of 8 terms over 8 xorbs of 16 chunks, 1,000 files a
 * shard, 100 scopes, written by {@link BulkLoader} as registration writes them; each invocation asks for a random file.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class IndexLookupBench {
    private static final int TERMS = 8;
    private static final int CHUNKS = 16;
    private static final int FILES_PER_SHARD = 1_000;
    private static final int SCOPES = 100;

    @Param({"100000"})
    public int files;

    private Path dir;
    private SqliteIndex index;
    private final SplittableRandom random = new SplittableRandom(5);

    @Setup(Level.Trial)
    public void setup() throws Exception {
        dir = Files.createTempDirectory("openxet-bench-index");
        Path db = dir.resolve("index.sqlite");
        new SqliteIndex(db, 1).close(); // the schema, as a server's first start makes it
        try (BulkLoader load = BulkLoader.sqlite(db)) {
            for (long x = 0; x < (long) files * TERMS; x++) {
                load.xorb(x + 1, xorbHash(x), chunks(x), 16 * 1024);
            }
            for (int s = 0; s < files / FILES_PER_SHARD; s++) {
                List<FileRecord> shardFiles = new ArrayList<>();
                List<MerkleHash> listed = new ArrayList<>();
                for (int i = 0; i < FILES_PER_SHARD; i++) {
                    long f = (long) s * FILES_PER_SHARD + i;
                    shardFiles.add(file(f));
                    for (int t = 0; t < TERMS; t++) listed.add(xorbHash(f * TERMS + t));
                }
                ShardCommit commit = new ShardCommit(hash("shard", s), scope(s * FILES_PER_SHARD), 4096, shardFiles,
                        listed, List.of());
                load.shard(s + 1, commit, (long) s * FILES_PER_SHARD + 1, h -> xorbId(h));
            }
            load.flush();
        }
        index = new SqliteIndex(db, 4);
        for (int i = 0; i < files; i++) file(); // as many lookups as files first: the page caches warm
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        index.close();
        Files2.deleteTree(dir);
    }

    @Benchmark
    public Optional<FileRecord> file() throws Exception {
        int f = random.nextInt(files);
        return index.file(hash("file", f), scope(f));
    }

    @Benchmark
    public Map<MerkleHash, XorbLayout> rangeLayouts() throws Exception {
        long f = random.nextInt(files);
        return index.xorbs(List.of(xorbHash(f * TERMS), xorbHash(f * TERMS + TERMS - 1)));
    }

    private static FileRecord file(long f) {
        MerkleHash[] xorbs = new MerkleHash[TERMS];
        int[] terms = new int[TERMS * FileRecord.TERM_INTS];
        for (int t = 0; t < TERMS; t++) {
            xorbs[t] = xorbHash(f * TERMS + t);
            int o = t * FileRecord.TERM_INTS;
            terms[o + FileRecord.XORB] = t;
            terms[o + FileRecord.CHUNK_START] = 0;
            terms[o + FileRecord.CHUNK_END] = CHUNKS;
            terms[o + FileRecord.UNPACKED] = CHUNKS * 1024;
            terms[o + FileRecord.BYTE_START] = 0;
            terms[o + FileRecord.BYTE_END] = CHUNKS * 1032;
        }
        return new FileRecord(hash("file", f), (long) TERMS * CHUNKS * 1024, xorbs, terms, null);
    }

    private static ChunkTable chunks(long x) {
        ByteBuffer hashes = ByteBuffer.allocate(CHUNKS * MerkleHash.LENGTH);
        int[] byteEnds = new int[CHUNKS];
        int[] unpackedEnds = new int[CHUNKS];
        for (int c = 0; c < CHUNKS; c++) {
            hashes.put(hash("chunk " + x, c).toBytes());
            byteEnds[c] = (c + 1) * 1032;
            unpackedEnds[c] = (c + 1) * 1024;
        }
        return new ChunkTable(CHUNKS, hashes.array(), byteEnds, unpackedEnds);
    }

    private static String scope(long f) {
        return "bench/repo-" + (f / FILES_PER_SHARD) % SCOPES;
    }

    /** Xorb {@code x}'s id in the bulk load (1-based, in load order), from its hash's first 8 bytes. */
    private static long xorbId(MerkleHash h) {
        return ByteBuffer.wrap(h.toBytes()).getLong() + 1;
    }

    /** Xorb {@code x}'s hash: its number in the first 8 bytes (so {@link #xorbId} reads it back), the rest hashed. */
    private static MerkleHash xorbHash(long x) {
        byte[] b = hash("xorb", x).toBytes();
        ByteBuffer.wrap(b).putLong(x);
        return MerkleHash.fromBytes(b);
    }

    private static MerkleHash hash(String kind, long n) {
        byte[] b = (kind + " " + n).getBytes(StandardCharsets.US_ASCII);
        return XetHashes.chunkHash(b, 0, b.length);
    }
}
