package org.openxet.storage;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.XetHashes;
import org.openxet.protocol.xorb.ChunkTable;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every {@link Index} does, run against each implementation (SQLite, PostgreSQL): the callers (xorb ingest,
 * shard registration, reconstruction, dedup, recovery) rely on exactly this.
 */
abstract class IndexContractTest {
    static final String SCOPE = "user/repo";
    static final String OTHER_SCOPE = "other/repo";

    Index index;

    /** A new instance on this test's storage; the first call of a test sees an empty index. */
    protected abstract Index open() throws Exception;

    /** Makes every insert into {@code table} fail inside the database (a fault in the middle of a transaction). */
    protected abstract void refuseInserts(String table) throws Exception;

    protected abstract void allowInserts(String table) throws Exception;

    @BeforeEach
    void openIndex() throws Exception {
        index = open();
    }

    @AfterEach
    void closeIndex() {
        if (index != null) index.close();
    }

    static MerkleHash hash(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return XetHashes.chunkHash(b, 0, b.length);
    }

    /** A layout of {@code n} chunks named after {@code name}: chunk k holds 100 + k bytes, stored in 108 + k. */
    static ChunkTable chunks(String name, int n) {
        byte[] hashes = new byte[32 * n];
        int[] byteEnds = new int[n];
        int[] unpackedEnds = new int[n];
        int b = 0;
        int u = 0;
        for (int k = 0; k < n; k++) {
            hash(name + " chunk " + k).writeTo(hashes, 32 * k);
            byteEnds[k] = b += 108 + k;
            unpackedEnds[k] = u += 100 + k;
        }
        return new ChunkTable(n, hashes, byteEnds, unpackedEnds);
    }

    static MerkleHash chunkOf(String xorbName, int k) {
        return hash(xorbName + " chunk " + k);
    }

    /** Registers xorb {@code name} with 3 chunks; returns its hash. */
    MerkleHash xorb(String name) throws IndexException {
        MerkleHash h = hash(name);
        assertTrue(index.putXorb(h, chunks(name, 3), 1000 + name.length()));
        return h;
    }

    /** A file of one term per xorb (its first two chunks). */
    static FileRecord file(String name, MerkleHash sha256, MerkleHash... xorbs) {
        int[] terms = new int[FileRecord.TERM_INTS * xorbs.length];
        for (int i = 0; i < xorbs.length; i++) {
            System.arraycopy(new int[]{i, 0, 2, 201, 0, 217}, 0, terms, FileRecord.TERM_INTS * i, FileRecord.TERM_INTS);
        }
        return new FileRecord(hash("file " + name), 201L * xorbs.length, xorbs.clone(), terms, sha256);
    }

    static ShardCommit shard(String name, String scope, List<FileRecord> files, List<MerkleHash> listed,
                             List<ShardCommit.DedupChunk> dedup) {
        return new ShardCommit(hash("shard " + name), scope, 4096, files, listed, dedup);
    }

    static ShardCommit.DedupChunk dedup(MerkleHash chunk, MerkleHash xorb) {
        return new ShardCommit.DedupChunk(chunk, xorb);
    }

    static List<MerkleHash> hashes(List<XorbLayout> layouts) {
        return layouts.stream().map(XorbLayout::hash).toList();
    }

    static void assertSameFile(FileRecord expected, FileRecord actual) {
        assertEquals(expected.fileHash(), actual.fileHash());
        assertEquals(expected.size(), actual.size());
        assertArrayEquals(expected.xorbs(), actual.xorbs());
        assertArrayEquals(expected.terms(), actual.terms());
        assertEquals(expected.sha256(), actual.sha256());
    }

    static void assertSameLayout(MerkleHash hash, ChunkTable expected, long stored, XorbLayout actual) {
        assertEquals(hash, actual.hash());
        assertEquals(stored, actual.storedBytes());
        assertEquals(expected.count(), actual.chunks().count());
        assertArrayEquals(expected.hashes(), actual.chunks().hashes());
        assertArrayEquals(expected.byteEnds(), actual.chunks().byteEnds());
        assertArrayEquals(expected.unpackedEnds(), actual.chunks().unpackedEnds());
    }

    Map<String, Long> counts(long xorbs, long shards, long shardScopes, long shardXorbs, long files, long fileScopes,
                             long dedupChunks) {
        Map<String, Long> m = new HashMap<>();
        m.put("xorbs", xorbs);
        m.put("shards", shards);
        m.put("shard_scopes", shardScopes);
        m.put("shard_xorbs", shardXorbs);
        m.put("files", files);
        m.put("file_scopes", fileScopes);
        m.put("dedup_chunks", dedupChunks);
        return m;
    }

    @Test
    void anEmptyIndexHasNothing() throws Exception {
        MerkleHash h = hash("nothing");
        assertFalse(index.hasXorb(h));
        assertEquals(Optional.empty(), index.xorb(h));
        assertEquals(Map.of(), index.xorbs(List.of(h)));
        assertEquals(Map.of(), index.xorbs(List.of()));
        assertFalse(index.xorbListedIn(h, SCOPE));
        assertFalse(index.hasShard(h));
        assertEquals(Optional.empty(), index.file(h, SCOPE));
        assertEquals(List.of(), index.dedup(h, null, 8));
        assertEquals(List.of(), index.dedup(h, SCOPE, 8));
        assertEquals(List.of(), index.scans().xorbHashes());
        assertEquals(counts(0, 0, 0, 0, 0, 0, 0), index.scans().rowCounts());
        assertEquals(List.of("xorbs", "shards", "shard_scopes", "shard_xorbs", "files", "file_scopes", "dedup_chunks"),
                List.copyOf(index.scans().rowCounts().keySet()));
    }

    @Test
    void aXorbRegistersOnceAndItsLayoutReadsBackExactly() throws Exception {
        MerkleHash h = hash("x");
        ChunkTable table = chunks("x", 1000);
        assertTrue(index.putXorb(h, table, 123_456));
        assertFalse(index.putXorb(h, chunks("other", 2), 99), "a second registration changes nothing");
        assertTrue(index.hasXorb(h));
        assertSameLayout(h, table, 123_456, index.xorb(h).orElseThrow());
        assertEquals(counts(1, 0, 0, 0, 0, 0, 0), index.scans().rowCounts());
    }

    @Test
    void xorbsAnswersThePresentOnesAndLeavesTheAbsentOut() throws Exception {
        List<String> names = List.of("a", "b", "c");
        List<MerkleHash> asked = new ArrayList<>();
        for (String name : names) asked.add(xorb(name));
        asked.add(hash("absent"));
        asked.add(hash("a")); // asked twice
        Map<MerkleHash, XorbLayout> found = index.xorbs(asked);
        assertEquals(Set.of(hash("a"), hash("b"), hash("c")), found.keySet());
        for (String name : names) {
            assertSameLayout(hash(name), chunks(name, 3), 1001, found.get(hash(name)));
        }
        assertEquals(3, index.scans().xorbHashes().size());
        assertEquals(found.keySet(), new HashSet<>(index.scans().xorbHashes()));
    }

    @Test
    void aShardRegistersEverythingOnceAndARepeatOnlyAddsItsScope() throws Exception {
        MerkleHash x1 = xorb("x1");
        MerkleHash x2 = xorb("x2");
        MerkleHash sha = hash("sha256 of f");
        FileRecord f = file("f", sha, x1, x2);
        FileRecord g = file("g", null, x2);
        ShardCommit commit = shard("s", SCOPE, List.of(f, g), List.of(x1, x2),
                List.of(dedup(chunkOf("x1", 0), x1), dedup(chunkOf("x2", 1), x2)));
        assertFalse(index.hasShard(commit.shardHash()));
        assertTrue(index.registerShard(commit));
        assertTrue(index.hasShard(commit.shardHash()));
        assertEquals(counts(2, 1, 1, 2, 2, 2, 2), index.scans().rowCounts());
        assertSameFile(f, index.file(f.fileHash(), SCOPE).orElseThrow());
        assertSameFile(g, index.file(g.fileHash(), SCOPE).orElseThrow());

        assertFalse(index.registerShard(commit), "the same shard again, same scope");
        assertEquals(counts(2, 1, 1, 2, 2, 2, 2), index.scans().rowCounts());

        // Another scope uploading the same shard body (even with different resolved terms) only gains visibility.
        FileRecord changed = file("f", null, x2);
        assertFalse(index.registerShard(new ShardCommit(commit.shardHash(), OTHER_SCOPE, 1, List.of(changed, g),
                List.of(), List.of())));
        assertEquals(counts(2, 1, 2, 2, 2, 4, 2), index.scans().rowCounts());
        assertSameFile(f, index.file(f.fileHash(), OTHER_SCOPE).orElseThrow());
        assertSameFile(g, index.file(g.fileHash(), OTHER_SCOPE).orElseThrow());
    }

    @Test
    void aKnownFilePointsAtTheNewestTermsAndKeepsItsSha256() throws Exception {
        MerkleHash x1 = xorb("x1");
        MerkleHash x2 = xorb("x2");
        MerkleHash sha = hash("sha256");
        FileRecord first = file("f", sha, x1);
        FileRecord second = file("f", null, x2, x1);
        assertTrue(index.registerShard(shard("s1", SCOPE, List.of(first), List.of(x1), List.of())));
        assertSameFile(first, index.file(first.fileHash(), SCOPE).orElseThrow());
        assertTrue(index.registerShard(shard("s2", OTHER_SCOPE, List.of(second), List.of(x1, x2), List.of())));
        FileRecord newest = new FileRecord(second.fileHash(), second.size(), second.xorbs(), second.terms(), sha);
        assertSameFile(newest, index.file(first.fileHash(), SCOPE).orElseThrow());
        assertSameFile(newest, index.file(first.fileHash(), OTHER_SCOPE).orElseThrow());
        assertEquals(counts(2, 2, 2, 3, 1, 2, 0), index.scans().rowCounts());

        // A later shard with a sha256 replaces it.
        MerkleHash sha2 = hash("sha256 2");
        assertTrue(index.registerShard(shard("s3", SCOPE, List.of(file("f", sha2, x2)), List.of(x2), List.of())));
        assertEquals(sha2, index.file(first.fileHash(), SCOPE).orElseThrow().sha256());
    }

    @Test
    void aFileListedTwiceInOneShardKeepsItsLastEntry() throws Exception {
        MerkleHash x1 = xorb("x1");
        MerkleHash x2 = xorb("x2");
        FileRecord last = file("f", null, x2);
        assertTrue(index.registerShard(shard("s", SCOPE, List.of(file("f", null, x1), last), List.of(x1, x2), List.of())));
        assertSameFile(last, index.file(last.fileHash(), SCOPE).orElseThrow());
        assertEquals(counts(2, 1, 1, 2, 1, 1, 0), index.scans().rowCounts());
    }

    @Test
    void aFileIsVisibleOnlyToTheScopesThatRegisteredIt() throws Exception {
        MerkleHash x = xorb("x");
        FileRecord f = file("f", null, x);
        assertTrue(index.registerShard(shard("s", SCOPE, List.of(f), List.of(x), List.of())));
        assertTrue(index.file(f.fileHash(), SCOPE).isPresent());
        assertEquals(Optional.empty(), index.file(f.fileHash(), OTHER_SCOPE));
        assertEquals(Optional.empty(), index.file(hash("file unknown"), SCOPE));
    }

    /** A file of {@code termCount} terms over {@code xorbs} in turn (each term their first two chunks). */
    static FileRecord bigFile(String name, int termCount, MerkleHash sha256, MerkleHash... xorbs) {
        int[] terms = new int[FileRecord.TERM_INTS * termCount];
        for (int t = 0; t < termCount; t++) {
            System.arraycopy(new int[]{t % xorbs.length, 0, 2, 201, 0, 217}, 0, terms, FileRecord.TERM_INTS * t,
                    FileRecord.TERM_INTS);
        }
        return new FileRecord(hash("file " + name), 201L * termCount, xorbs.clone(), terms, sha256);
    }

    /** A re-registered large file is read at its newest version at once, in each scope that sees it, and no other. */
    @Test
    void aLargeFileIsReadAtItsNewestVersionInItsScopes() throws Exception {
        MerkleHash x1 = xorb("x1");
        MerkleHash x2 = xorb("x2");
        int n = 4096;
        FileRecord first = bigFile("f", n, null, x1);
        assertTrue(index.registerShard(shard("s1", SCOPE, List.of(first), List.of(x1), List.of())));
        assertSameFile(first, index.file(first.fileHash(), SCOPE).orElseThrow());
        assertEquals(Optional.empty(), index.file(first.fileHash(), OTHER_SCOPE), "not visible there");

        FileRecord second = bigFile("f", n + 1, null, x2, x1);
        assertTrue(index.registerShard(shard("s2", OTHER_SCOPE, List.of(second), List.of(x1, x2), List.of())));
        assertSameFile(second, index.file(first.fileHash(), SCOPE).orElseThrow());
        assertSameFile(second, index.file(first.fileHash(), OTHER_SCOPE).orElseThrow());

        MerkleHash sha = hash("sha256");
        assertTrue(index.registerShard(shard("s3", SCOPE, List.of(bigFile("f", n + 1, sha, x2, x1)), List.of(x2), List.of())));
        assertEquals(sha, index.file(first.fileHash(), SCOPE).orElseThrow().sha256());
        assertEquals(sha, index.file(first.fileHash(), OTHER_SCOPE).orElseThrow().sha256());
    }

    /**
     * A quarantined xorb (repair) is absent to every read while its row stays; putXorb in its old layout brings it
     * back, and in another layout does not (its files' byte ranges were resolved against the old one).
     */
    @Test
    void aQuarantinedXorbIsAbsentUntilItsSameLayoutIsPutAgain() throws Exception {
        MerkleHash x = xorb("q");
        MerkleHash other = xorb("q other");
        assertTrue(index.registerShard(shard("qs", SCOPE, List.of(file("qf", null, x)), List.of(x, other),
                List.of(dedup(chunkOf("q", 0), x), dedup(chunkOf("q other", 0), other)))));
        assertTrue(index.quarantineXorb(x, 1000));
        assertFalse(index.quarantineXorb(x, 1001), "already quarantined");
        assertFalse(index.quarantineXorb(hash("never registered"), 1000));
        assertFalse(index.hasXorb(x));
        assertEquals(Optional.empty(), index.xorb(x));
        assertEquals(Map.of(), index.xorbs(List.of(x)));
        assertFalse(index.xorbListedIn(x, SCOPE));
        assertEquals(List.of(other), hashes(index.dedup(chunkOf("q other", 0), SCOPE, 8)), "dedup skips it");
        assertEquals(List.of(), hashes(index.dedup(chunkOf("q", 0), SCOPE, 8)).stream().filter(x::equals).toList());
        List<IndexScans.Stored> scanned = new java.util.ArrayList<>();
        index.scans().eachXorb(scanned::add);
        assertEquals(List.of(other), scanned.stream().map(IndexScans.Stored::hash).toList());
        assertTrue(index.file(hash("file qf"), SCOPE).isPresent(), "its files stay registered");
        // A shard naming it is refused while it is quarantined.
        assertThrows(MissingXorbsException.class,
                () -> index.registerShard(shard("qs2", SCOPE, List.of(file("qf2", null, x)), List.of(x), List.of())));
        assertFalse(index.putXorb(x, chunks("q other", 3), 1000 + 1), "another layout does not revive it");
        assertFalse(index.hasXorb(x));
        assertTrue(index.putXorb(x, chunks("q", 3), 1000 + "q".length()), "its own layout does");
        assertTrue(index.hasXorb(x));
        assertEquals(List.of(x, other), hashes(index.dedup(chunkOf("q", 0), SCOPE, 8)));
        assertFalse(index.putXorb(x, chunks("q", 3), 1000 + "q".length()), "and then it is simply present");
    }

    /** fsck's scans: every row once, past page boundaries, xorbs and shards in registration order, as recorded. */
    @Test
    void scansVisitEveryRowOnceAcrossPages() throws Exception {
        int n = 2 * IndexScans.SCAN_PAGE + 7;
        List<IndexScans.Stored> xorbs = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            MerkleHash h = hash("scan x" + i);
            assertTrue(index.putXorb(h, chunks("scan x" + i, 3), 500 + i));
            xorbs.add(new IndexScans.Stored(h, 500 + i));
        }
        List<FileRecord> files = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) files.add(file("scan f" + i, null, xorbs.get(i).hash()));
        assertTrue(index.registerShard(shard("scan s1", SCOPE, files.subList(0, n - 1), List.of(), List.of())));
        assertTrue(index.registerShard(shard("scan s2", OTHER_SCOPE, files.subList(n - 2, n), List.of(), List.of())));
        List<IndexScans.Stored> seenXorbs = new java.util.ArrayList<>();
        index.scans().eachXorb(seenXorbs::add);
        assertEquals(xorbs, seenXorbs);
        List<IndexScans.Stored> seenShards = new java.util.ArrayList<>();
        index.scans().eachShard(seenShards::add);
        assertEquals(List.of(new IndexScans.Stored(hash("shard scan s1"), 4096),
                        new IndexScans.Stored(hash("shard scan s2"), 4096)),
                seenShards);
        List<FileRecord> seenFiles = new java.util.ArrayList<>();
        index.scans().eachFile(seenFiles::add);
        // One shard's files go in as one statement: their order among themselves is the database's.
        assertEquals(n, seenFiles.size());
        Map<MerkleHash, FileRecord> byHash = new java.util.HashMap<>();
        for (FileRecord f : seenFiles) byHash.put(f.fileHash(), f);
        for (FileRecord f : files) assertSameFile(f, byHash.get(f.fileHash()));
        Map<MerkleHash, List<String>> scopes = index.scans().scopesOf(java.util.Set.of(files.getFirst().fileHash(),
                files.get(n - 2).fileHash(), files.getLast().fileHash(), hash("no such file")));
        assertEquals(List.of(SCOPE), scopes.get(files.getFirst().fileHash()));
        assertEquals(java.util.Set.of(OTHER_SCOPE, SCOPE), java.util.Set.copyOf(scopes.get(files.get(n - 2).fileHash())));
        assertEquals(List.of(OTHER_SCOPE), scopes.get(files.getLast().fileHash()));
        assertEquals(3, scopes.size(), "a file no shard registered has no entry");
    }

    @Test
    void sampledFilesAreRegisteredOnesEachWithAScopeThatReadsIt() throws Exception {
        assertEquals(List.of(), index.scans().sampleFiles(10, 1), "an empty index samples nothing");
        MerkleHash x = xorb("sample x");
        List<FileRecord> mine = new ArrayList<>();
        List<FileRecord> theirs = new ArrayList<>();
        for (int i = 0; i < 20; i++) mine.add(file("sample mine " + i, null, x));
        for (int i = 0; i < 20; i++) theirs.add(file("sample theirs " + i, null, x));
        assertTrue(index.registerShard(shard("sample s1", SCOPE, mine, List.of(), List.of())));
        assertTrue(index.registerShard(shard("sample s2", OTHER_SCOPE, theirs, List.of(), List.of())));
        Map<MerkleHash, Map<String, Long>> before = Map.of(x, index.scans().rowCounts());
        List<IndexScans.FileInScope> sample = index.scans().sampleFiles(64, 7);
        assertEquals(64, sample.size());
        Set<String> scopes = new HashSet<>();
        for (IndexScans.FileInScope f : sample) {
            assertTrue(index.file(f.file(), f.scope()).isPresent(), f + " is readable in its scope");
            scopes.add(f.scope());
        }
        assertEquals(Set.of(SCOPE, OTHER_SCOPE), scopes, "spread over the index, not its first rows");
        assertEquals(sample, index.scans().sampleFiles(64, 7), "the same seed samples the same files");
        assertEquals(before, Map.of(x, index.scans().rowCounts()), "sampling writes nothing");
    }

    @Test
    void aLargeFileRecordRoundTripsExactly() throws Exception {
        int xorbCount = 100;
        int termCount = 100_000;
        MerkleHash[] xorbs = new MerkleHash[xorbCount];
        for (int i = 0; i < xorbCount; i++) xorbs[i] = xorb("x" + i);
        int[] terms = new int[FileRecord.TERM_INTS * termCount];
        for (int t = 0; t < termCount; t++) {
            int[] term = {t % xorbCount, t, t + 1, 65_536 + t, 1_000_000 + t, 1_070_000 + t};
            System.arraycopy(term, 0, terms, FileRecord.TERM_INTS * t, FileRecord.TERM_INTS);
        }
        FileRecord big = new FileRecord(hash("big"), 1L << 36, xorbs, terms, hash("big sha"));
        assertTrue(index.registerShard(shard("s", SCOPE, List.of(big), List.of(xorbs), List.of())));
        assertSameFile(big, index.file(big.fileHash(), SCOPE).orElseThrow());
        assertEquals(termCount, index.file(big.fileHash(), SCOPE).orElseThrow().termCount());
    }

    @Test
    void xorbListedInFollowsTheScopesOfTheShardsListingIt() throws Exception {
        MerkleHash listed = xorb("listed");
        MerkleHash unlisted = xorb("unlisted");
        ShardCommit commit = shard("s", SCOPE, List.of(), List.of(listed), List.of());
        assertTrue(index.registerShard(commit));
        assertTrue(index.xorbListedIn(listed, SCOPE));
        assertFalse(index.xorbListedIn(listed, OTHER_SCOPE));
        assertFalse(index.xorbListedIn(unlisted, SCOPE));
        assertFalse(index.registerShard(new ShardCommit(commit.shardHash(), OTHER_SCOPE, 1, List.of(), List.of(), List.of())));
        assertTrue(index.xorbListedIn(listed, OTHER_SCOPE));
    }

    @Test
    void dedupAnswersTheHoldingXorbFirstThenTheShardsOtherXorbsInRegistrationOrder() throws Exception {
        MerkleHash x1 = xorb("x1");
        MerkleHash x2 = xorb("x2");
        MerkleHash x3 = xorb("x3");
        MerkleHash x4 = xorb("x4");
        MerkleHash chunk = chunkOf("x3", 2);
        assertTrue(index.registerShard(shard("s", SCOPE, List.of(), List.of(x4, x2, x3, x1), List.of(dedup(chunk, x3)))));
        assertEquals(List.of(x3, x1, x2, x4), hashes(index.dedup(chunk, null, 32)));
        assertEquals(List.of(x3, x1, x2, x4), hashes(index.dedup(chunk, SCOPE, 32)));
        assertEquals(List.of(x3, x1), hashes(index.dedup(chunk, null, 2)));
        assertEquals(List.of(x3), hashes(index.dedup(chunk, null, 1)));
        assertSameLayout(x3, chunks("x3", 3), 1002, index.dedup(chunk, null, 1).get(0));
        assertEquals(List.of(), index.dedup(chunk, OTHER_SCOPE, 32), "isolated: another scope sees nothing");
        assertEquals(List.of(), index.dedup(chunkOf("x3", 1), null, 32), "only listed chunks are indexed");
    }

    @Test
    void dedupAnswersFromTheNewestShardVisibleToTheScope() throws Exception {
        MerkleHash x1 = xorb("x1");
        MerkleHash x2 = xorb("x2");
        MerkleHash x3 = xorb("x3");
        MerkleHash chunk = hash("shared chunk");
        assertTrue(index.registerShard(shard("old", SCOPE, List.of(), List.of(x1, x3), List.of(dedup(chunk, x1)))));
        assertTrue(index.registerShard(shard("new", OTHER_SCOPE, List.of(), List.of(x2), List.of(dedup(chunk, x2)))));
        assertEquals(List.of(x2), hashes(index.dedup(chunk, null, 32)));
        assertEquals(List.of(x2), hashes(index.dedup(chunk, OTHER_SCOPE, 32)));
        assertEquals(List.of(x1, x3), hashes(index.dedup(chunk, SCOPE, 32)));
        assertEquals(List.of(), index.dedup(chunk, "third/repo", 32));
    }

    @Test
    void aChunkListedTwiceInOneShardKeepsItsFirstRegisteredEntry() throws Exception {
        MerkleHash x1 = xorb("x1");
        MerkleHash x2 = xorb("x2");
        MerkleHash chunk = hash("twice");
        assertTrue(index.registerShard(shard("s", SCOPE, List.of(), List.of(x1, x2),
                List.of(dedup(chunk, x2), dedup(chunk, x1)))));
        assertEquals(List.of(x2, x1), hashes(index.dedup(chunk, null, 32)));
        assertEquals(1L, index.scans().rowCounts().get("dedup_chunks"));
    }

    @Test
    void aRegistrationThatFailsInsideTheDatabaseLeavesNothingAndTheNextOneCommits() throws Exception {
        MerkleHash x = xorb("x");
        ShardCommit commit = shard("s", SCOPE, List.of(file("f", null, x)), List.of(x), List.of(dedup(chunkOf("x", 0), x)));
        refuseInserts("dedup_chunks");
        try {
            assertThrows(IndexException.class, () -> index.registerShard(commit));
            assertEquals(counts(1, 0, 0, 0, 0, 0, 0), index.scans().rowCounts());
            assertFalse(index.hasShard(commit.shardHash()));
            assertThrows(IndexException.class, () -> index.registerShard(commit), "and again: still all or nothing");
            assertEquals(counts(1, 0, 0, 0, 0, 0, 0), index.scans().rowCounts());
        } finally {
            allowInserts("dedup_chunks");
        }
        assertTrue(index.registerShard(commit));
        assertEquals(counts(1, 1, 1, 1, 1, 1, 1), index.scans().rowCounts());
    }

    @Test
    void aReopenedIndexKeepsEverythingAndItsSchema() throws Exception {
        MerkleHash x = xorb("x");
        FileRecord f = file("f", hash("sha"), x);
        assertTrue(index.registerShard(shard("s", SCOPE, List.of(f), List.of(x), List.of(dedup(chunkOf("x", 1), x)))));
        Map<String, Long> before = index.scans().rowCounts();
        index.close();
        index = null;
        try (Index again = open()) {
            assertEquals(before, again.scans().rowCounts());
            assertSameFile(f, again.file(f.fileHash(), SCOPE).orElseThrow());
            assertEquals(List.of(x), hashes(again.dedup(chunkOf("x", 1), SCOPE, 8)));
            assertFalse(again.putXorb(x, chunks("x", 3), 1));
            assertNull(again.xorb(hash("nothing")).orElse(null));
        }
    }

    @Test
    void aRegistrationNamingAXorbTheIndexDoesNotHoldCommitsNothing() throws Exception {
        MerkleHash stored = xorb("stored");
        MerkleHash gone = hash("collected meanwhile");
        Map<String, Long> before = index.scans().rowCounts();
        for (ShardCommit commit : List.of(
                shard("terms", SCOPE, List.of(file("f", null, stored, gone)), List.of(stored), List.of()),
                shard("listed", SCOPE, List.of(file("g", null, stored)), List.of(stored, gone), List.of()),
                shard("dedup", SCOPE, List.of(), List.of(), List.of(dedup(chunkOf("stored", 0), gone))))) {
            MissingXorbsException e = assertThrows(MissingXorbsException.class, () -> index.registerShard(commit));
            assertTrue(e.getMessage().startsWith("1 of the "), e.getMessage());
            assertEquals(before, index.scans().rowCounts(), "nothing of " + commit.shardHash() + " was kept");
        }
        assertFalse(index.xorbListedIn(gone, SCOPE));
        assertEquals(List.of(), index.dedup(chunkOf("stored", 0), null, 8));
        // The same files once the xorb is there again.
        assertTrue(index.putXorb(gone, chunks("collected meanwhile", 3), 1019));
        assertTrue(index.registerShard(shard("terms", SCOPE, List.of(file("f", null, stored, gone)), List.of(stored),
                List.of())));
    }
}
