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

    @Test
    void concurrentAppendsToALogLandWholeAndOnceEachAndReadBackAsAnObject() throws Exception {
        LocalBucket bucket = new LocalBucket(dir.resolve("bucket"));
        Bucket.AppendLog log = bucket.createAppendLog("registrations/log-1").orElseThrow();
        try (ExecutorService pool = Executors.newFixedThreadPool(8)) {
            List<Future<?>> writers = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int writer = t;
                writers.add(pool.submit(() -> {
                    for (int i = 0; i < 300; i++) {
                        // Lines of different lengths, so an interleaved write could not go unnoticed.
                        String line = writer + ":" + i + ":" + "x".repeat(i % 97) + "\n";
                        log.syncThrough(log.append(line.getBytes(StandardCharsets.US_ASCII)));
                    }
                    return null;
                }));
            }
            for (Future<?> w : writers) w.get();
        }
        log.close();
        List<String> lines = new String(bucket.read("registrations/log-1"), StandardCharsets.US_ASCII).lines().toList();
        assertEquals(8 * 300, lines.size());
        assertEquals(8 * 300, new HashSet<>(lines).size());
        for (String line : lines) {
            String[] parts = line.split(":");
            assertEquals("x".repeat(Integer.parseInt(parts[1]) % 97), parts.length > 2 ? parts[2] : "", line);
        }
        assertEquals(List.of("registrations/log-1"), bucket.list("registrations"));
    }
}
