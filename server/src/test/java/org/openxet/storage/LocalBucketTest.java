package org.openxet.storage;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Directory creation on the put path. That every new directory's entry is fsynced cannot be observed without a
 * crash; these check that creating (and syncing) the chain works from a bucket root that does not exist yet and
 * under concurrent writers racing into fresh fan-out directories.
 */
class LocalBucketTest {
    @TempDir
    Path dir;

    @Test
    void aBucketOpensUnderDirectoriesThatDoNotExistYet() throws Exception {
        Path root = dir.resolve("data/deeper/bucket");
        LocalBucket bucket = new LocalBucket(root);
        assertTrue(Files.isDirectory(root.resolve(".tmp")));
        bucket.put("xorbs/default/abcd", "x".getBytes(StandardCharsets.UTF_8));
        assertEquals(List.of("xorbs/default/abcd"), bucket.list("xorbs"));
        assertEquals(root.resolve("xorbs/default/ab/abcd"), bucket.path("xorbs/default/abcd"));
        assertTrue(bucket.tempFiles().isEmpty());
    }

    @Test
    void concurrentWritersIntoFreshFanOutDirectoriesAllLand() throws Exception {
        LocalBucket bucket = new LocalBucket(dir.resolve("bucket"));
        int writers = 16;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<String>> done = new ArrayList<>();
            for (int i = 0; i < writers * 8; i++) {
                // 4 fan-out directories under 2 prefixes, none of which exists yet: writers race to create each.
                String key = (i % 2 == 0 ? "xorbs/default/" : "shards/") + "0" + (i % 4) + String.format("%04d", i);
                done.add(pool.submit(() -> {
                    start.await();
                    bucket.put(key, key.getBytes(StandardCharsets.UTF_8));
                    return key;
                }));
            }
            start.countDown();
            HashSet<String> keys = new HashSet<>();
            for (Future<String> f : done) {
                String key = f.get();
                keys.add(key);
                assertArrayEquals(key.getBytes(StandardCharsets.UTF_8), bucket.read(key));
            }
            HashSet<String> listed = new HashSet<>(bucket.list("xorbs"));
            listed.addAll(bucket.list("shards"));
            assertEquals(keys, listed);
            assertTrue(bucket.tempFiles().isEmpty());
        } finally {
            pool.shutdownNow();
        }
    }
}
