package org.openxet.http;

import org.junit.jupiter.api.Test;
import org.openxet.testing.LogCapture;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One rendering per key in flight; a key is released when its rendering ends, failed ones (logged) included. */
class PendingRendersTest {
    @Test
    void aKeyIsClaimedOnceUntilItsRenderingEnds() throws Exception {
        PendingRenders<String> pending = new PendingRenders<>("test-render", true, Logger.getLogger("test.pending"));
        assertTrue(pending.claim("a"));
        assertFalse(pending.claim("a"), "a second answer for the same file must not start a second rendering");
        assertTrue(pending.claim("b"), "another file's rendering is independent");

        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        pending.start("a", "a", () -> {
            running.countDown();
            try {
                finish.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            done.countDown();
        });
        assertTrue(running.await(10, TimeUnit.SECONDS), "the rendering runs on its own thread");
        assertFalse(pending.claim("a"), "still in flight");
        finish.countDown();
        assertTrue(done.await(10, TimeUnit.SECONDS));
        // The key is released just after the rendering's last line, on its thread: wait for it, a bounded while.
        boolean claimedAgain = false;
        for (int i = 0; i < 1000 && !claimedAgain; i++) {
            claimedAgain = pending.claim("a");
            if (!claimedAgain) Thread.sleep(10);
        }
        assertTrue(claimedAgain, "released once its rendering ended");
    }

    @Test
    void aFailedRenderingIsLoggedAndReleasesItsKey() {
        try (LogCapture log = new LogCapture()) {
            PendingRenders<String> pending = new PendingRenders<>("test-render", false,
                    Logger.getLogger("test.pending.failed"));
            assertTrue(pending.claim("f"));
            // In the caller (background off): the failure does not reach the answer that started it.
            pending.start("f", "the rendered terms of file f", () -> {
                throw new IllegalStateException("measured 10 bytes, rendered 11");
            });
            assertEquals(List.of("WARNING could not keep the rendered terms of file f"), log.warnings());
            assertEquals(1, log.withStacks("test.pending.failed"));
            assertTrue(pending.claim("f"), "a failed rendering must not leave its key claimed for ever");
        }
    }
}
