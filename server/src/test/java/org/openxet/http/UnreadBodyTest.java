package org.openxet.http;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openxet.service.Access;
import org.openxet.testing.TestServer;
import org.openxet.testing.Vectors;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A request answered without its body being read (refused before it, or part-way) gets its answer and then the
 * connection ends after a short, bounded lingering read: the unread bytes are never taken for a next request, never
 * drained without end, and never make the kernel reset the answer away.
 */
class UnreadBodyTest {
    static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        server = new TestServer();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    /** Everything the server sends until it closes (or 15 s pass: then the test fails on what it got). */
    private static String readToEnd(Socket s) throws Exception {
        s.setSoTimeout(15_000);
        InputStream in = s.getInputStream();
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        try {
            int r;
            while ((r = in.read(buf)) >= 0) got.write(buf, 0, r);
        } catch (SocketTimeoutException e) {
            got.write("<no end within 15 s>".getBytes(StandardCharsets.US_ASCII));
        }
        return got.toString(StandardCharsets.ISO_8859_1);
    }

    private static int answers(String text) {
        return text.split("HTTP/1\\.1 ", -1).length - 1;
    }

    @Test
    void aRequestHiddenInARefusedBodyNeverRuns() throws Exception {
        String hidden = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n";
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            s.getOutputStream().write(("POST /v1/shards HTTP/1.1\r\nHost: x\r\nContent-Length: " + hidden.length()
                    + "\r\n\r\n" + hidden).getBytes(StandardCharsets.US_ASCII));
            String got = readToEnd(s);
            assertTrue(got.startsWith("HTTP/1.1 401 "), got);
            assertEquals(1, answers(got), "one answer, then the end of the connection: " + got);
        }
    }

    @Test
    void aHugeUnreadBodyLingersBrieflyThenTheConnectionEnds() throws Exception {
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            OutputStream out = s.getOutputStream();
            out.write(("POST /v1/xorbs/default/" + "0".repeat(64) + " HTTP/1.1\r\nHost: x\r\nContent-Length: 60000000"
                    + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            // A sender that keeps trickling after its refusal: it is read for at most Lingering.MAX_MILLIS.
            Thread trickle = Thread.ofVirtual().start(() -> {
                try {
                    for (int i = 0; i < 100; i++) {
                        out.write(new byte[1000]);
                        out.flush();
                        Thread.sleep(100);
                    }
                } catch (Exception closedByServer) {
                    // expected
                }
            });
            long start = System.nanoTime();
            String got = readToEnd(s);
            long millis = (System.nanoTime() - start) / 1_000_000;
            trickle.interrupt();
            assertTrue(got.startsWith("HTTP/1.1 401 "), got);
            assertEquals(1, answers(got), got);
            assertTrue(millis < Lingering.MAX_MILLIS + 3000, "ended after " + millis + " ms");
        }
    }

    @Test
    void aRefusalAfterTheWholeBodyWasReadKeepsTheConnection() throws Exception {
        // A xorb whose bytes do not hash to the name it is sent under: refused only once all of it has been read.
        byte[] body = Vectors.bytes(Vectors.capture("single-r1m").get("xorbs").get(0).get("file").asText());
        String otherHash = Vectors.capture("single-r8192").get("xorbs").get(0).get("xorb_hash").asText();
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(15_000);
            OutputStream out = s.getOutputStream();
            out.write(("POST /v1/xorbs/default/" + otherHash + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                    + server.writeToken() + "\r\nContent-Length: " + body.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            String refused = UploadRejectionTest.readResponse(in);
            assertTrue(refused.startsWith("HTTP/1.1 400 "), refused);
            assertTrue(refused.contains("{\"error\":\"hash_mismatch\""), refused);
            assertFalse(refused.toLowerCase(java.util.Locale.ROOT).contains("connection: close"), refused);
            String next = UploadRejectionTest.readResponse(in);
            assertTrue(next.startsWith("HTTP/1.1 200 "), "the next request on the same connection: " + next);
        }
    }

    @Test
    void aTelemetryBodyOverTheCapSentWholeGetsIts413() throws Exception {
        String read = server.token("user/repo", Access.READ);
        byte[] body = new byte[8 << 20];
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            OutputStream out = s.getOutputStream();
            // The client sends its whole body at once, as a fire-and-forget telemetry sender does, then reads.
            Thread send = Thread.ofVirtual().start(() -> {
                try {
                    out.write(("POST /v1/telemetry HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + read
                            + "\r\nContent-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                    out.write(body);
                    out.flush();
                } catch (Exception e) {
                    // a reset while sending shows below as a missing answer
                }
            });
            send.join();
            String got = readToEnd(s);
            assertTrue(got.startsWith("HTTP/1.1 413 "), got.isEmpty() ? "(reset, no answer)" : got);
            assertTrue(got.contains("{\"error\":\"payload_too_large\""), got);
        }
    }

    /** A declared body never sent, to a route that reads none: answered, then ended, not waited for without end. */
    @Test
    void aBodyTheRouteDoesNotReadEndsTheConnectionAfterItsAnswer() throws Exception {
        for (String framing : new String[]{"Content-Length: 60000000", "Transfer-Encoding: chunked"}) {
            try (Socket s = new Socket("127.0.0.1", server.port())) {
                s.getOutputStream().write(("GET /health HTTP/1.1\r\nHost: x\r\n" + framing + "\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                long start = System.nanoTime();
                String got = readToEnd(s);
                long millis = (System.nanoTime() - start) / 1_000_000;
                assertTrue(got.startsWith("HTTP/1.1 200 "), framing + ": " + got);
                assertEquals(1, answers(got), got);
                assertTrue(millis < Lingering.MAX_MILLIS + 3000, framing + ": ended after " + millis + " ms");
            }
        }
    }

    @Test
    void aRequestHiddenInTheBodyOfAnAnsweredGetNeverRuns() throws Exception {
        String hidden = "GET /v1/reconstructions/" + "0".repeat(64) + " HTTP/1.1\r\nHost: x\r\n\r\n";
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            s.getOutputStream().write(("GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: " + hidden.length()
                    + "\r\n\r\n" + hidden).getBytes(StandardCharsets.US_ASCII));
            String got = readToEnd(s);
            assertTrue(got.startsWith("HTTP/1.1 200 "), got);
            assertEquals(1, answers(got), "one answer, then the end of the connection: " + got);
        }
    }

    @Test
    void aBodyLargerThanAnyRouteTakesIs413BeforeRouting() throws Exception {
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            s.getOutputStream().write(("GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000000\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            String got = readToEnd(s);
            assertTrue(got.startsWith("HTTP/1.1 413 "), got);
            assertTrue(got.contains("\"error\":\"payload_too_large\""), got);
        }
    }
}
