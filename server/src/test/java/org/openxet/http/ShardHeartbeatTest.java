package org.openxet.http;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The one heartbeat thread of v2 shard uploads keeps every stream alive, even beside a client that stops reading. */
class ShardHeartbeatTest {
    private static final String FRAME = "{\"type\":\"validating\",\"verified\":0,\"total\":1}\n";

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
