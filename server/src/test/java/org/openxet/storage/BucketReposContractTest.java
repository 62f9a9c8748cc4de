package org.openxet.storage;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openxet.protocol.MerkleHash;
import org.openxet.storage.BucketRepos.Delete;
import org.openxet.storage.BucketRepos.Entry;
import org.openxet.storage.BucketRepos.Put;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every index's {@link BucketRepos} does, run against SQLite and PostgreSQL: the bucket routes (service
 * BucketBatch, BucketTree) rely on exactly this, byte-order ranges above all.
 */
abstract class BucketReposContractTest {
    Index index;
    BucketRepos repos;
    /** What each write handed its {@link BucketRepos.BeforeCommit}. */
    final List<BucketRepos.Applied> recorded = new ArrayList<>();

    protected abstract Index open() throws Exception;

    protected abstract void refuseInserts(String table) throws Exception;

    protected abstract void allowInserts(String table) throws Exception;

    @BeforeEach
    void openIndex() throws Exception {
        index = open();
        repos = index.bucketRepos();
    }

    @AfterEach
    void closeIndex() {
        if (index != null) index.close();
    }

    static Put put(String path, String hashOf, long size) {
        return new Put(path, IndexContractTest.hash(hashOf), size, 1_700_000_000_123L, null, false);
    }

    static List<String> paths(List<Entry> entries) {
        return entries.stream().map(Entry::path).toList();
    }

    @Test
    void aBucketIsCreatedOnceAndReportsWhatItWasCreatedWith() throws Exception {
        assertEquals(Optional.empty(), repos.info("alice/data"));
        assertTrue(repos.create("alice/data", false, 1_000L, recorded::add));
        assertFalse(repos.create("alice/data", true, 2_000L, recorded::add), "a second create changes nothing");
        assertEquals(new BucketRepos.Info("alice/data", false, 1_000L, 0, 0), repos.info("alice/data").orElseThrow());
        assertEquals(Map.of("bucket_repos", 1L, "bucket_repo_files", 0L), repos.rowCounts());
    }

    @Test
    void aBatchAppliesInOrderKeepsTheTotalsAndCreatesTheBucketPrivate() throws Exception {
        repos.apply("alice/data", List.of(put("a.bin", "a", 10), put("b.bin", "b", 20), put("a.bin", "a2", 15),
                new Delete("b.bin"), new Delete("never.bin"), put("c/d.bin", "d", 7)), 5_000L, recorded::add);
        BucketRepos.Info info = repos.info("alice/data").orElseThrow();
        assertTrue(info.isPrivate());
        assertEquals(22, info.size());
        assertEquals(2, info.totalFiles());
        List<Entry> all = repos.range("alice/data", "", true, null, 100);
        assertEquals(List.of("a.bin", "c/d.bin"), paths(all));
        Entry a = all.getFirst();
        assertEquals(IndexContractTest.hash("a2"), a.xetHash());
        assertEquals(15, a.size());
        assertEquals(1_700_000_000_123L, a.mtime());
        assertEquals(5_000L, a.uploadedAt());
        assertNull(a.contentType());

        repos.apply("alice/data", List.of(new Put("c/d.bin", IndexContractTest.hash("d"), 7, 9L, "text/plain", false)),
                6_000L, recorded::add);
        Entry d = repos.lookup("alice/data", List.of("c/d.bin", "missing")).getFirst();
        assertEquals("text/plain", d.contentType());
        assertEquals(9L, d.mtime());
        assertEquals(6_000L, d.uploadedAt());
        assertEquals(new BucketRepos.Info("alice/data", true, 5_000L, 22, 2), repos.info("alice/data").orElseThrow(),
                "replacing a file with one of the same size changes no total");
    }

    @Test
    void rangesFollowUtf8ByteOrderAndStopBelowTheBound() throws Exception {
        // Byte order of UTF-8 is code point order: U+E000 (EE 80 80) before U+1F600 (F0 9F 98 80), which Java's
        // String.compareTo (UTF-16 units) puts the other way round. '-' < '/' < '0': a/b-c is not under a/b/.
        List<String> names = List.of("a/b/x", "a/b-c", "a/b0", "a/b/\uE000", "a/b/\uD83D\uDE00", "a/b/é", "a/b/y/z", "a");
        List<BucketRepos.Change> changes = new ArrayList<>();
        for (String n : names) changes.add(put(n, n, 1));
        repos.apply("o/b", changes, 1L, recorded::add);
        assertEquals(List.of("a", "a/b-c", "a/b/x", "a/b/y/z", "a/b/é", "a/b/\uE000", "a/b/\uD83D\uDE00", "a/b0"),
                paths(repos.range("o/b", "", true, null, 100)));
        assertEquals(List.of("a/b/x", "a/b/y/z", "a/b/é", "a/b/\uE000", "a/b/\uD83D\uDE00"),
                paths(repos.range("o/b", "a/b/", true, "a/b0", 100)));
        assertEquals(List.of("a/b/y/z", "a/b/é"), paths(repos.range("o/b", "a/b/x", false, "a/b0", 2)));
        assertEquals(List.of("a/b/é", "a/b/\uE000"), paths(repos.range("o/b", "a/b/y0", true, "a/b0", 2)));
        assertEquals(List.of(), repos.range("no/such", "", true, null, 10));
    }

    @Test
    void aBatchThatFailsInsideTheDatabaseAppliesNothing() throws Exception {
        repos.apply("o/b", List.of(put("keep.bin", "k", 5)), 1L, recorded::add);
        refuseInserts("bucket_repo_files");
        try {
            assertThrows(IndexException.class,
                    () -> repos.apply("o/b", List.of(new Delete("keep.bin"), put("new.bin", "n", 9)), 2L, recorded::add));
        } finally {
            allowInserts("bucket_repo_files");
        }
        assertEquals(List.of("keep.bin"), paths(repos.range("o/b", "", true, null, 10)));
        assertEquals(new BucketRepos.Info("o/b", true, 1L, 5, 1), repos.info("o/b").orElseThrow());
    }

    @Test
    void aCopyMakesTheFileVisibleToTheBucketsScopeAndNoOther() throws Exception {
        MerkleHash x = IndexContractTest.hash("x");
        assertTrue(index.putXorb(x, IndexContractTest.chunks("x", 3), 1003));
        FileRecord f = IndexContractTest.file("f", null, x);
        assertTrue(index.registerShard(new ShardCommit(IndexContractTest.hash("shard s"), "models/alice/m", 4096,
                List.of(f), List.of(x), List.of())));
        assertEquals(Map.of(f.fileHash(), f.size()), repos.visibleSizes("models/alice/m", List.of(f.fileHash(),
                IndexContractTest.hash("unknown"))));
        assertEquals(Map.of(), repos.visibleSizes("buckets/alice/b", List.of(f.fileHash())));

        repos.apply("alice/b", List.of(new Put("copy.bin", f.fileHash(), f.size(), 1L, null, true)), 1L, recorded::add);
        assertEquals(Map.of(f.fileHash(), f.size()), repos.visibleSizes("buckets/alice/b", List.of(f.fileHash())));
        assertTrue(index.file(f.fileHash(), "buckets/alice/b").isPresent());
        assertEquals(Optional.empty(), index.file(f.fileHash(), "buckets/alice/other"));
        // A second copy of the same file grants nothing new and fails nothing.
        repos.apply("alice/b", List.of(new Put("again.bin", f.fileHash(), f.size(), 1L, null, true)), 2L, recorded::add);
        assertEquals(2, repos.info("alice/b").orElseThrow().totalFiles());
    }

    @Test
    void theScanVisitsEveryEntryOfEveryBucketOnceAcrossPages() throws Exception {
        List<BucketRepos.Change> many = new ArrayList<>();
        for (int i = 0; i < IndexScans.SCAN_PAGE + 5; i++) many.add(put(String.format("f/%05d", i), "h" + i, i));
        repos.apply("o/one", many, 1L, recorded::add);
        repos.apply("o/two", List.of(put("x", "x", 1), put("y", "y", 1)), 1L, recorded::add);
        List<String> seen = new ArrayList<>();
        repos.eachEntry(l -> seen.add(l.bucket() + ":" + l.entry().path()));
        assertEquals(IndexScans.SCAN_PAGE + 7, seen.size());
        assertEquals(seen.size(), seen.stream().distinct().count());
        assertEquals("o/one:f/00000", seen.getFirst());
        assertEquals("o/two:y", seen.getLast());
    }

    @Test
    void everyWriteHandsItsRecordTheNextSequenceNumberOfItsBucketAndWhatItCommits() throws Exception {
        assertTrue(repos.create("alice/data", false, 1_000L, recorded::add));
        assertFalse(repos.create("alice/data", true, 1_500L, recorded::add));
        repos.apply("alice/data", List.of(put("a.bin", "a", 10), new Delete("gone")), 2_000L, recorded::add);
        repos.apply("bob/other", List.of(put("b.bin", "b", 4)), 3_000L, recorded::add);
        repos.apply("alice/data", List.of(new Delete("a.bin")), 4_000L, recorded::add);
        assertEquals(List.of(
                new BucketRepos.Applied("alice/data", 1, false, 1_000L, 1_000L, List.of()),
                new BucketRepos.Applied("alice/data", 2, false, 1_000L, 2_000L,
                        List.of(put("a.bin", "a", 10), new Delete("gone"))),
                new BucketRepos.Applied("bob/other", 1, true, 3_000L, 3_000L, List.of(put("b.bin", "b", 4))),
                new BucketRepos.Applied("alice/data", 3, false, 1_000L, 4_000L, List.of(new Delete("a.bin")))),
                recorded, "an existing bucket's create records nothing");
    }

    @Test
    void aWriteWhoseRecordFailsIsNotMadeAndTheNextOneTakesItsNumber() throws Exception {
        repos.apply("o/b", List.of(put("keep.bin", "k", 5)), 1L, recorded::add);
        java.io.IOException full = new java.io.IOException("no space left on device");
        assertEquals(full, assertThrows(java.io.IOException.class, () -> repos.apply("o/b",
                List.of(new Delete("keep.bin"), put("new.bin", "n", 9)), 2L, a -> {
                    throw full;
                })));
        assertFalse(repos.create("o/b", false, 2L, a -> {
            throw full;
        }));
        assertThrows(java.io.IOException.class, () -> repos.create("o/new", false, 2L, a -> {
            throw full;
        }));
        assertEquals(Optional.empty(), repos.info("o/new"));
        assertEquals(List.of("keep.bin"), paths(repos.range("o/b", "", true, null, 10)));
        assertEquals(new BucketRepos.Info("o/b", true, 1L, 5, 1), repos.info("o/b").orElseThrow());
        repos.apply("o/b", List.of(new Delete("keep.bin")), 3L, recorded::add);
        assertEquals(List.of(1L, 2L), recorded.stream().map(BucketRepos.Applied::seq).toList());
    }

    @Test
    void aReplayedWriteSetsTheRowsTheTimesAndTheSequenceNumberItRecorded() throws Exception {
        repos.replay(new BucketRepos.Applied("o/r", 1, false, 10L, 10L, List.of()));
        repos.replay(new BucketRepos.Applied("o/r", 7, false, 10L, 20L,
                List.of(put("a", "a", 3), put("b", "b", 4), new Delete("a"))));
        assertEquals(new BucketRepos.Info("o/r", false, 10L, 4, 1), repos.info("o/r").orElseThrow());
        Entry b = repos.lookup("o/r", List.of("b")).getFirst();
        assertEquals(20L, b.uploadedAt());
        repos.apply("o/r", List.of(), 30L, recorded::add);
        assertEquals(8, recorded.getFirst().seq(), "numbering goes on from the replayed one");
    }

    @Test
    void aDeletedBucketIsGoneWithItsPathsAndOneMadeAgainGoesOnFromItsNumber() throws Exception {
        repos.apply("o/d", List.of(put("a", "a", 3)), 1L, recorded::add);
        assertTrue(repos.delete("o/d", 2L, recorded::add));
        assertFalse(repos.delete("o/d", 3L, recorded::add), "nothing to delete");
        assertEquals(Optional.empty(), repos.info("o/d"));
        assertEquals(List.of(), repos.range("o/d", "", true, null, 10));
        assertEquals(List.of(), repos.list("o", "", 10));
        assertTrue(repos.create("o/d", false, 4L, recorded::add));
        assertEquals(new BucketRepos.Info("o/d", false, 4L, 0, 0), repos.info("o/d").orElseThrow());
        assertEquals(List.of(new BucketRepos.Applied("o/d", 1, true, 1L, 1L, List.of(put("a", "a", 3))),
                new BucketRepos.Applied("o/d", 2, true, 1L, 2L, List.of(), true),
                new BucketRepos.Applied("o/d", 3, false, 4L, 4L, List.of())), recorded);
        assertEquals(List.of("o/d"), repos.list("o", "", 10).stream().map(BucketRepos.Info::name).toList());
    }

    @Test
    void aReopenedIndexKeepsItsBuckets() throws Exception {
        repos.apply("o/b", List.of(put("p", "p", 3)), 1L, recorded::add);
        index.close();
        index = open();
        assertEquals(List.of("p"), paths(index.bucketRepos().range("o/b", "", true, null, 10)));
    }
}
