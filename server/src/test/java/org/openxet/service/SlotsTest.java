package org.openxet.service;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SlotsTest {
    @Test
    void aCallerFindingEverySlotTakenIsToldBusyAfterTheWait() throws Exception {
        Slots slots = new Slots(2, "file-chunk-hashes", false);
        Slots.Held a = slots.acquire(Duration.ZERO);
        Slots.Held b = slots.acquire(Duration.ZERO);
        assertEquals(0, slots.available());
        long start = System.nanoTime();
        Slots.Busy busy = assertThrows(Slots.Busy.class, () -> slots.acquire(Duration.ofMillis(200)));
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(waited >= 190, waited + " ms");
        assertEquals("all 2 file-chunk-hashes slots stayed busy for 200 ms; retry later", busy.getMessage());
        a.close();
        b.close();
        assertEquals(2, slots.available());
    }

    @Test
    void aWaiterGetsTheSlotWhenItIsReturnedWithinTheWait() throws Exception {
        Slots slots = new Slots(1, "shard commit", true);
        Slots.Held held = slots.acquire(Duration.ZERO);
        CountDownLatch waiting = new CountDownLatch(1);
        CountDownLatch got = new CountDownLatch(1);
        Thread waiter = Thread.ofVirtual().start(() -> {
            waiting.countDown();
            try (Slots.Held ignored = slots.acquire(Duration.ofSeconds(30))) {
                got.countDown();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        waiting.await();
        // Time enough for a waiter that wrongly got the slot to say so.
        assertFalse(got.await(200, TimeUnit.MILLISECONDS), "the waiter must not get a slot that is held");
        held.close();
        assertTrue(got.await(10, TimeUnit.SECONDS));
        waiter.join();
        assertEquals(1, slots.available());
    }

    @Test
    void closingTwiceReturnsTheSlotOnceAndWorkThatThrowsReturnsIt() throws Exception {
        Slots slots = new Slots(1, "shard commit", true);
        Slots.Held held = slots.acquire(Duration.ZERO);
        held.close();
        held.close();
        assertEquals(1, slots.available());
        assertThrows(IllegalStateException.class, () -> {
            try (Slots.Held ignored = slots.acquire(Duration.ZERO)) {
                throw new IllegalStateException("work failed");
            }
        });
        assertEquals(1, slots.available());
        assertThrows(IllegalArgumentException.class, () -> new Slots(0, "none", false));
    }
}
