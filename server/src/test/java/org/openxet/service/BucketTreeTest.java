package org.openxet.service;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openxet.protocol.MerkleHash;
import org.openxet.storage.BucketRepos;
import org.openxet.storage.SqliteIndex;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A tree page over a real SQLite index: what it lists, and how many rows it reads to list it. */
class BucketTreeTest {
    private static final int PAGE = 40;

    /** {@code repos}, counting the rows its range queries return. */
    private static BucketRepos counting(BucketRepos repos, AtomicInteger rows) {
        return (BucketRepos) Proxy.newProxyInstance(BucketRepos.class.getClassLoader(),
                new Class<?>[]{BucketRepos.class}, (proxy, method, args) -> {
                    try {
                        Object answer = method.invoke(repos, args);
                        if (method.getName().equals("range")) rows.addAndGet(((List<?>) answer).size());
                        return answer;
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private static void fill(BucketRepos repos, List<String> paths) throws Exception {
        List<BucketRepos.Change> puts = new ArrayList<>();
        for (String p : paths) {
            puts.add(new BucketRepos.Put(p, MerkleHash.ofWords(p.hashCode(), 1, 2, 3), 1, 1L, null, false));
        }
        repos.apply("o/b", puts, 1L, r -> { });
    }

    @Test
    void aPageOfDirectoriesReadsAFewRowsAnEntryNotTheRestOfThePageForEach(@TempDir Path dir) throws Exception {
        try (SqliteIndex index = new SqliteIndex(dir.resolve("i.sqlite"), 1)) {
            List<String> paths = new ArrayList<>();
            for (int d = 0; d < 60; d++) for (int f = 0; f < 50; f++) paths.add("d%02d/f%02d".formatted(d, f));
            fill(index.bucketRepos(), paths);
            AtomicInteger rows = new AtomicInteger();
            BucketTree tree = new BucketTree(counting(index.bucketRepos(), rows), PAGE);
            BucketTree.Page page = tree.list("o/b", "", false, null);
            assertEquals(PAGE, page.items().size());
            assertEquals("d00", page.items().getFirst().path());
            assertEquals("d39", page.items().getLast().path());
            assertTrue(page.items().stream().allMatch(BucketTree.Item::directory));
            assertNotNull(page.next());
            // Asking for the rest of the page after each directory read 40 + 39 + ... + 1 = 820 rows here.
            assertTrue(rows.get() <= 2 * PAGE, "read " + rows.get() + " rows for a page of " + PAGE);
        }
    }

    @Test
    void filesBetweenDirectoriesAreListedInOrderWithFewRowsRead(@TempDir Path dir) throws Exception {
        try (SqliteIndex index = new SqliteIndex(dir.resolve("i.sqlite"), 1)) {
            List<String> paths = new ArrayList<>();
            for (int d = 0; d < 5; d++) {
                for (int f = 0; f < 30; f++) paths.add("d%d/f%02d".formatted(d, f));
                for (int f = 0; f < 7; f++) paths.add("d%d-file%d".formatted(d, f));
            }
            fill(index.bucketRepos(), paths);
            AtomicInteger rows = new AtomicInteger();
            BucketTree tree = new BucketTree(counting(index.bucketRepos(), rows), PAGE);
            List<String> listed = new ArrayList<>();
            String cursor = null;
            do {
                BucketTree.Page page = tree.list("o/b", "", false, cursor);
                page.items().forEach(i -> listed.add(i.path()));
                cursor = page.next();
            } while (cursor != null);
            List<String> expected = new ArrayList<>();
            for (int d = 0; d < 5; d++) {
                // '-' sorts before '/': d0-file0..6 come before the directory d0.
                for (int f = 0; f < 7; f++) expected.add("d%d-file%d".formatted(d, f));
                expected.add("d" + d);
            }
            assertEquals(expected, listed);
            assertTrue(rows.get() <= 3 * expected.size() + PAGE, "read " + rows.get() + " rows for " + expected.size());
        }
    }

    @Test
    void aRecursivePageStillReadsItsFilesInOneQuery(@TempDir Path dir) throws Exception {
        try (SqliteIndex index = new SqliteIndex(dir.resolve("i.sqlite"), 1)) {
            List<String> paths = new ArrayList<>();
            for (int f = 0; f < 30; f++) paths.add("a/f%02d".formatted(f));
            fill(index.bucketRepos(), paths);
            AtomicInteger rows = new AtomicInteger();
            BucketTree tree = new BucketTree(counting(index.bucketRepos(), rows), PAGE);
            BucketTree.Page page = tree.list("o/b", "", true, null);
            assertEquals(31, page.items().size(), "the directory a, then its 30 files");
            assertNull(page.next());
            assertEquals(30, rows.get());
        }
    }
}
