package org.openxet.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.openxet.testing.TestServer;
import org.openxet.testing.Vectors;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Commit permits are held only while a received, parsed shard is validated, stored and registered: slow senders hold
 * none, and a shard that cannot get one within the upload window is answered 503, not left waiting.
 */
class ShardPermitTest {
    @Test
    void slowShardSendersHoldNoCommitPermitSoAnHonestUploadGoesThroughAtOnce() throws Exception {
        // Two permits, a floor of 1 B/s: each trickling upload could keep a permit for as long as it likes, and four
        // of them (twice the permits) once made every other shard upload wait 20 s for a 503.
        try (TestServer server = new TestServer(c -> c.withCommitPermits(2).withUpload(1, Duration.ofSeconds(2)))) {
            String write = server.writeToken();
            byte[] shard = uploadR1mXorb(server, write);
            String head = "POST /v1/shards HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + write + "\r\n";
            List<Socket> holders = new ArrayList<>();
            List<Thread> trickles = new ArrayList<>();
            try {
                for (int h = 0; h < 4; h++) {
                    Socket holder = new Socket("127.0.0.1", server.port());
                    holders.add(holder);
                    OutputStream out = holder.getOutputStream();
                    out.write((head + "Content-Length: " + shard.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    trickles.add(Thread.ofVirtual().start(() -> {
                        try {
                            for (int i = 0; i < 40; i++) {
                                out.write(shard[i]);
                                out.flush();
                                Thread.sleep(200);
                            }
                        } catch (Exception stopped) {
                            // the test closed the socket
                        }
                    }));
                }
                Thread.sleep(300);
                for (String version : List.of("/v1/shards", "/v2/shards")) {
                    long start = System.nanoTime();
                    String accepted = post(server, head.replace("/v1/shards", version), shard);
                    long millis = (System.nanoTime() - start) / 1_000_000;
                    assertTrue(accepted.startsWith("HTTP/1.1 200"), accepted);
                    assertTrue(millis < 1000, version + " took " + millis + " ms beside the slow senders");
                }
            } finally {
                trickles.forEach(Thread::interrupt);
                for (Socket holder : holders) holder.close();
            }
        }
    }

    @Test
    void aShardUploadWaitingTooLongForAPermitIs503WithRetryAfter() throws Exception {
        try (TestServer server = new TestServer(c -> c.withCommitPermits(1).withUpload(1, Duration.ofSeconds(2)))) {
            String write = server.writeToken();
            byte[] shard = uploadR1mXorb(server, write);
            String head = "POST /v1/shards HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + write + "\r\n";
            // A registration that holds the only permit (as a long validation would).
            CountDownLatch holding = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Thread holder = Thread.ofVirtual().start(() -> {
                try {
                    server.services().shards().withPermit(Duration.ofSeconds(1), () -> {
                        holding.countDown();
                        release.await();
                        return null;
                    });
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertTrue(holding.await(5, TimeUnit.SECONDS));
            long start = System.nanoTime();
            String refused = post(server, head, shard);
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(refused.startsWith("HTTP/1.1 503"), refused);
            assertTrue(refused.contains("\r\nRetry-After: " + Errors.BUSY_RETRY_AFTER_SECONDS + "\r\n"), refused);
            assertTrue(refused.contains("{\"error\":\"busy\",\"message\":\"all 1 shard commit slots stayed busy"), refused);
            assertTrue(millis >= 1900 && millis < 8000, millis + " ms");
            release.countDown();
            holder.join();
            // The permit is back: the same shard now registers.
            String accepted = post(server, head, shard);
            assertTrue(accepted.startsWith("HTTP/1.1 200"), accepted);
        }
    }

    /** Uploads single-r1m's xorb; returns its shard. */
    private static byte[] uploadR1mXorb(TestServer server, String write) throws Exception {
        JsonNode r1m = Vectors.capture("single-r1m");
        JsonNode x = r1m.get("xorbs").get(0);
        assertEquals(200, server.post("/v1/xorbs/default/" + x.get("xorb_hash").asText(), write,
                Vectors.bytes(x.get("file").asText())).statusCode());
        return Vectors.bytes(r1m.get("shards").get(0).get("file").asText());
    }

    private static String post(TestServer server, String head, byte[] body) throws Exception {
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            // Without a bounded wait no answer ever comes: fail after 15 s instead of hanging.
            s.setSoTimeout(15_000);
            OutputStream out = s.getOutputStream();
            out.write((head + "Content-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            return readResponse(s.getInputStream());
        }
    }

    /** Status line, headers and the Content-Length body of one response. */
    private static String readResponse(InputStream in) throws Exception {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) return head.toString();
            head.append((char) b);
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?i)\r\ncontent-length: (\\d+)\r\n").matcher(head);
        int length = m.find() ? Integer.parseInt(m.group(1)) : 0;
        return head + new String(in.readNBytes(length), StandardCharsets.ISO_8859_1);
    }
}
