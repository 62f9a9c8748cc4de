package org.openxet.service;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KeyedLocksTest {
    @Test
    void holdersOfOneKeyTakeTurnsAndOtherKeysDoNotWait() throws Exception {
        KeyedLocks<String> locks = new KeyedLocks<>();
        KeyedLocks.Held a = locks.lock("a");
        // Another key while "a" is held: acquired at once, on another thread.
        CountDownLatch bHeld = new CountDownLatch(1);
        Thread b = Thread.ofVirtual().start(() -> {
            try (KeyedLocks.Held ignored = locks.lock("b")) {
                bHeld.countDown();
            }
        });
        assertTrue(bHeld.await(10, TimeUnit.SECONDS), "a lock of another key waited for a held one");
        b.join();
        // The same key: the second holder gets it only after the first lets go.
        AtomicInteger order = new AtomicInteger();
        CountDownLatch secondHas = new CountDownLatch(1);
        Thread second = Thread.ofVirtual().start(() -> {
            try (KeyedLocks.Held ignored = locks.lock("a")) {
                order.compareAndSet(1, 2);
                secondHas.countDown();
            }
        });
        assertFalse(secondHas.await(200, TimeUnit.MILLISECONDS), "two holders of one key at once");
        order.set(1);
        a.close();
        assertTrue(secondHas.await(10, TimeUnit.SECONDS));
        second.join();
        assertEquals(2, order.get());
        assertEquals(0, locks.heldCount(), "every holder left the map");
    }

    @Test
    void manyThreadsOnFewKeysNeverOverlapPerKey() throws Exception {
        KeyedLocks<Integer> locks = new KeyedLocks<>();
        AtomicInteger[] inside = {new AtomicInteger(), new AtomicInteger(), new AtomicInteger()};
        AtomicInteger overlaps = new AtomicInteger();
        Thread[] threads = new Thread[60];
        for (int i = 0; i < threads.length; i++) {
            int key = i % 3;
            threads[i] = Thread.ofVirtual().start(() -> {
                for (int round = 0; round < 200; round++) {
                    try (KeyedLocks.Held ignored = locks.lock(key)) {
                        if (inside[key].incrementAndGet() != 1) overlaps.incrementAndGet();
                        Thread.onSpinWait();
                        inside[key].decrementAndGet();
                    }
                }
            });
        }
        for (Thread t : threads) t.join();
        assertEquals(0, overlaps.get());
        assertEquals(0, locks.heldCount());
    }

    @Test
    void aThreadCannotTakeAKeyItHolds() {
        KeyedLocks<String> locks = new KeyedLocks<>();
        try (KeyedLocks.Held ignored = locks.lock("x")) {
            assertThrows(IllegalStateException.class, () -> locks.lock("x"));
        }
        assertEquals(0, locks.heldCount());
    }
}
