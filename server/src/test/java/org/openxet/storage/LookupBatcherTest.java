package org.openxet.storage;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LookupBatcherTest {
    /** Answers "v" + key (none for a negative key), recording each batch it was asked. */
    private static final class Recording implements LookupBatcher.Loader<Integer, String> {
        final List<List<Integer>> batches = Collections.synchronizedList(new ArrayList<>());

        @Override
        public List<String> load(List<Integer> keys) throws IndexException {
            batches.add(List.copyOf(keys));
            return keys.stream().map(k -> k < 0 ? null : "v" + k).toList();
        }
    }

    @Test
    void lookupsOneAtATimeAreEachABatchOfOne() throws Exception {
        Recording loader = new Recording();
        LookupBatcher<Integer, String> batcher = new LookupBatcher<>(2, 64, loader);

        assertEquals("v1", batcher.get(1));
        assertEquals("v2", batcher.get(2));
        assertEquals(null, batcher.get(-1));

        assertEquals(List.of(List.of(1), List.of(2), List.of(-1)), loader.batches);
    }

    @Test
    void lookupsThatFindEveryLaneBusyAreAnsweredTogetherEachWithItsOwnValue() throws Exception {
        Recording loader = new Recording();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            Queued q = queuedBehindOneLane(threads, 64, 10, loader);
            for (int k = 0; k <= 10; k++) assertEquals("v" + k, q.lookups().get(k).get());
        }
        assertEquals(2, loader.batches.size(), "the 10 that waited were one batch: " + loader.batches);
        assertEquals(List.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), loader.batches.get(1).stream().sorted().toList());
    }

    @Test
    void aBatchIsNeverLargerThanItsLimit() throws Exception {
        Recording loader = new Recording();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            Queued q = queuedBehindOneLane(threads, 4, 10, loader);
            for (int k = 0; k <= 10; k++) assertEquals("v" + k, q.lookups().get(k).get());
        }
        assertEquals(List.of(1, 4, 4, 2), loader.batches.stream().map(List::size).toList());
    }

    @Test
    void aFailedBatchFailsEachOfItsLookupsAndFreesItsLane() throws Exception {
        boolean[] down = {true};
        LookupBatcher.Loader<Integer, String> loader = keys -> {
            if (down[0]) throw new IndexException("index read failed (test): connection refused", null);
            return keys.stream().map(k -> "v" + k).toList();
        };
        Queued q;
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            q = queuedBehindOneLane(threads, 64, 3, loader);
            for (Future<String> f : q.lookups()) {
                Exception e = assertThrows(Exception.class, f::get);
                assertTrue(e.getCause() instanceof IndexException, e.toString());
                assertEquals("index read failed (test): connection refused", e.getCause().getMessage());
            }
        }
        down[0] = false;
        assertEquals("v7", q.batcher().get(7), "the lane was given back");
    }

    private record Queued(LookupBatcher<Integer, String> batcher, List<Future<String>> lookups) {
    }

    /**
     * On a batcher of one lane: lookup 0 takes the lane and holds it until lookups 1..n all wait behind it, then lets
     * go; answers come from {@code loader}. Returns the batcher and the lookups' futures, lookup 0 first.
     */
    private static Queued queuedBehindOneLane(ExecutorService threads, int maxBatch, int n,
                                                            LookupBatcher.Loader<Integer, String> loader)
            throws InterruptedException {
        CountDownLatch firstStarted = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        LookupBatcher<Integer, String> batcher = new LookupBatcher<>(1, maxBatch, keys -> {
            if (keys.equals(List.of(0))) {
                firstStarted.countDown();
                await(release);
            }
            return loader.load(keys);
        });
        List<Future<String>> lookups = new ArrayList<>();
        lookups.add(threads.submit(() -> batcher.get(0)));
        assertTrue(firstStarted.await(10, TimeUnit.SECONDS));
        for (int k = 1; k <= n; k++) {
            int key = k;
            lookups.add(threads.submit(() -> batcher.get(key)));
        }
        for (int i = 0; i < 1000 && batcher.waiting() < n; i++) Thread.sleep(5);
        assertEquals(n, batcher.waiting());
        release.countDown();
        return new Queued(batcher, lookups);
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(10, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
