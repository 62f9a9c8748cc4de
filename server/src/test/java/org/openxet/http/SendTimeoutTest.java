package org.openxet.http;

import org.junit.jupiter.api.Test;
import org.openxet.service.Access;
import org.openxet.storage.FileRecord;
import org.openxet.testing.TestServer;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A client that asks for a large answer and then reads nothing: with {@code send.timeout} its connection is ended
 * by the kernel and the request released (a 499 in the metrics); without it, the request is still writing.
 */
class SendTimeoutTest {
    private static final String SCOPE = "user/large";
    private static final String ROUTE = "/v2/reconstructions/{file_id}";

    @Test
    void aClientThatStopsReadingHasItsRequestEndedAfterTheTimeout() throws Exception {
        try (TestServer s = new TestServer(c -> c.withSendTimeout(Duration.ofSeconds(2)))) {
            try (Socket client = stalledAsk(s)) {
                long start = System.nanoTime();
                assertTrue(waitForEnded(s, Duration.ofSeconds(20)), "the request never ended");
                long seconds = (System.nanoTime() - start) / 1_000_000_000;
                assertTrue(seconds >= 1 && seconds < 15, "ended after " + seconds + " s");
                // What the client finds when it reads at last: what was buffered, then a reset, never the whole answer.
                assertThrows(IOException.class, () -> readAll(client.getInputStream()));
            }
        }
    }

    @Test
    void withoutTheTimeoutTheRequestWaitsForItsClient() throws Exception {
        try (TestServer s = new TestServer(c -> c.withSendTimeout(Duration.ZERO))) {
            try (Socket ignored = stalledAsk(s)) {
                assertTrue(!waitForEnded(s, Duration.ofSeconds(6)), "ended although nothing limits it");
            }
        }
    }

    /** Asks for a 40,000-term answer (about 9 MB, past both sockets' buffers) with a 4 KiB window, reading nothing. */
    private static Socket stalledAsk(TestServer s) throws Exception {
        FileRecord file = LargeFileFixture.register(s.services().index(), SCOPE, 50, 256);
        Socket client = new Socket();
        client.setReceiveBufferSize(4096);
        client.connect(new InetSocketAddress("127.0.0.1", s.port()));
        client.getOutputStream().write(("GET /v2/reconstructions/" + file.fileHash().hex() + " HTTP/1.1\r\nHost: x\r\n"
                + "Authorization: Bearer " + s.token(SCOPE, Access.READ) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        client.getOutputStream().flush();
        return client;
    }

    /** Whether the stalled request shows in the metrics as ended by its client (499) within {@code limit}. */
    private static boolean waitForEnded(TestServer s, Duration limit) throws Exception {
        String ended = "openxet_requests_seconds_count{method=\"GET\",route=\"" + ROUTE + "\",status=\"499\"}";
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < deadline) {
            String metrics = s.get("/metrics", null).body();
            if (metrics.contains(ended)) return true;
            Thread.sleep(200);
        }
        return false;
    }

    private static long readAll(InputStream in) throws IOException {
        byte[] buf = new byte[64 * 1024];
        long n = 0;
        int r;
        while ((r = in.read(buf)) >= 0) n += r;
        assertEquals(-1, r);
        return n;
    }
}
