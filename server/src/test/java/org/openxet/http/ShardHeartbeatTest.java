package org.openxet.http;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The one heartbeat thread of v2 shard uploads keeps every stream alive, even beside a client that stops reading. */
class ShardHeartbeatTest {
    private static final String FRAME = "{\"type\":\"validating\",\"verified\":0,\"total\":1}\n";

    /**
     * A client gone during a v2 commit: its frames are dropped, never thrown, so the registration carries on from its
     * record to its index commit; gone during validation, the next progress report stops it before anything is stored.
     */
    @Test
    void aFrameToAGoneClientIsDroppedDuringCommitAndStopsValidation() {
        int[] writes = {0};
        ShardRoutes.Frames frames = new ShardRoutes.Frames(new OutputStream() {
            @Override
            public void write(int b) throws java.io.IOException {
                write(new byte[]{(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws java.io.IOException {
                writes[0]++;
                throw new java.io.IOException("Broken pipe");
            }
        });
        frames.committing("uploading");
        frames.committing("syncing");
        frames.send("{\"type\":\"result\"}");
        frames.repeatLast();
        assertTrue(frames.clientGone());
        assertEquals(1, writes[0], "one failed write, then nothing more is tried");
        RuntimeException stopped = assertThrows(RuntimeException.class, () -> frames.verified(3, 10));
        assertEquals("its validation stopped after 3 of 10 files", stopped.getMessage());
    }

    @Test
    void aClientThatStopsReadingStallsOnlyItsOwnHeartbeat() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        // The stalled client: its first frame went out, every later write blocks (a full socket buffer).
        OutputStream stalled = new OutputStream() {
            private boolean first = true;

            @Override
            public void write(int b) {
            }

            @Override
            public void write(byte[] b, int off, int len) {
                if (first) {
                    first = false;
                    return;
                }
                try {
                    never.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        ByteArrayOutputStream reading = new ByteArrayOutputStream();
        ShardRoutes.Frames stuck = new ShardRoutes.Frames(stalled);
        ShardRoutes.Frames live = new ShardRoutes.Frames(reading);
        stuck.send(FRAME.strip());
        live.send(FRAME.strip());
        ExecutorService heartbeat = Executors.newSingleThreadExecutor();
        try {
            // Two ticks of the heartbeat thread: the stalled stream's first, then the live one's.
            heartbeat.submit(stuck::beat).get();
            heartbeat.submit(live::beat).get();
            long deadline = System.nanoTime() + 2_000_000_000L;
            while (reading.size() < 2 * FRAME.length() && System.nanoTime() < deadline) Thread.sleep(10);
            assertEquals(FRAME + FRAME, reading.toString(StandardCharsets.UTF_8), "the live stream's frame was repeated");
        } finally {
            never.countDown();
            heartbeat.shutdownNow();
        }
    }
}
