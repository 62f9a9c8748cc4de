package org.openxet.http;

import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.ServerRequest;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bodies written to the connection's channel ({@link ResponseChannel}, {@link ChannelBodyStream}) arrive byte for byte,
 * keep the connection usable, and are found on the Helidon this server is built with.
 */
class ResponseChannelTest {
    /** What each request saw: whether the channel was found, and what the body stream said it sent. */
    record Seen(boolean channel, long sent) {
    }

    private static byte[] pattern(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) (i * 31 + (i >>> 11));
        return b;
    }

    /**
     * A server like {@code OpenxetServer}'s (blocking sockets unless {@code nio}): {@code /body/N} writes N bytes in
     * the answer writer's pattern (a 64 KiB first write, then 1 MiB ones); {@code /short/N} declares N bytes and
     * writes half.
     */
    private static WebServer start(boolean nio, ConcurrentLinkedQueue<Seen> seen) {
        return WebServer.builder().host("127.0.0.1").port(0).shutdownHook(false).useNio(nio)
                .connectionOptions(o -> o.tcpNoDelay(true))
                .routing(r -> r
                        .get("/body/{n}", (req, res) -> {
                            byte[] body = pattern(Integer.parseInt(req.path().pathParameters().get("n")));
                            res.contentLength(body.length);
                            try (OutputStream out = ResponseChannel.body(req, res, body.length)) {
                                int first = Math.min(AnswerWriter.FIRST_WRITE, body.length);
                                out.write(body, 0, first);
                                for (int off = first; off < body.length; off += AnswerWriter.WRITE_SLICE) {
                                    out.write(body, off, Math.min(AnswerWriter.WRITE_SLICE, body.length - off));
                                }
                            }
                            seen.add(seen(req));
                        })
                        .get("/direct/{n}", (req, res) -> {
                            // The first write from an array (it carries the headers), the rest from native memory.
                            byte[] body = pattern(Integer.parseInt(req.path().pathParameters().get("n")));
                            res.contentLength(body.length);
                            try (OutputStream out = ResponseChannel.body(req, res, body.length)) {
                                out.write(body, 0, AnswerWriter.FIRST_WRITE);
                                ByteBuffer rest = ByteBuffer.allocateDirect(body.length - AnswerWriter.FIRST_WRITE);
                                rest.put(body, AnswerWriter.FIRST_WRITE, rest.capacity()).flip();
                                ((ChannelBodyStream) out).write(rest);
                            }
                            seen.add(seen(req));
                        })
                        .get("/direct-only/{n}", (req, res) -> {
                            // Native memory from the first byte: its first 64 KiB go with the headers through Helidon.
                            byte[] body = pattern(Integer.parseInt(req.path().pathParameters().get("n")));
                            res.contentLength(body.length);
                            try (OutputStream out = ResponseChannel.body(req, res, body.length)) {
                                ByteBuffer all = ByteBuffer.allocateDirect(body.length).put(body).flip();
                                assertEquals(body.length, ((ChannelBodyStream) out).write(all));
                            }
                            seen.add(seen(req));
                        })
                        .get("/pieces/{n}", (req, res) -> {
                            // A multipart body's pattern: small heads and CRLFs between large parts, single bytes too.
                            byte[] body = pattern(Integer.parseInt(req.path().pathParameters().get("n")));
                            res.contentLength(body.length);
                            try (OutputStream out = ResponseChannel.body(req, res, body.length)) {
                                int off = 0;
                                for (int i = 0; off < body.length; i++) {
                                    int n = Math.min(body.length - off, i % 3 == 0 ? 100_000 : i % 3 == 1 ? 7 : 1);
                                    if (n == 1) out.write(body[off]);
                                    else out.write(body, off, n);
                                    off += n;
                                }
                            }
                            seen.add(seen(req));
                        })
                        .get("/short/{n}", (req, res) -> {
                            byte[] body = pattern(Integer.parseInt(req.path().pathParameters().get("n")));
                            res.contentLength(body.length);
                            try (OutputStream out = ResponseChannel.body(req, res, body.length)) {
                                out.write(body, 0, AnswerWriter.FIRST_WRITE);
                                out.write(body, AnswerWriter.FIRST_WRITE, body.length / 2);
                            }
                            seen.add(seen(req));
                        }))
                .build().start();
    }

    private static Seen seen(ServerRequest req) {
        return new Seen(ResponseChannel.of(req).isPresent(), ChannelBodyStream.sentBytes(req.context()));
    }

    /** One GET on a kept-alive connection: the body of a 200 with a Content-Length, read to its last byte. */
    private static byte[] get(Socket s, String path) throws IOException {
        s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        InputStream in = s.getInputStream();
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) throw new EOFException("connection closed in the headers");
            head.write(c);
        }
        String h = head.toString(StandardCharsets.US_ASCII);
        assertTrue(h.startsWith("HTTP/1.1 200"), h);
        int length = -1;
        for (String line : h.split("\r\n")) {
            if (line.regionMatches(true, 0, "Content-Length:", 0, 15)) length = Integer.parseInt(line.substring(15).trim());
        }
        return in.readNBytes(length);
    }

    @Test
    void largeBodiesGoToTheChannelAndArriveWhole() throws Exception {
        ConcurrentLinkedQueue<Seen> seen = new ConcurrentLinkedQueue<>();
        WebServer server = start(false, seen);
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(10_000);
            int large = 5 * AnswerWriter.WRITE_SLICE + 12_345;
            // Large, small, large on one connection: what went around Helidon leaves it ready for the next answer.
            assertArrayEquals(pattern(large), get(s, "/body/" + large));
            assertArrayEquals(pattern(1000), get(s, "/body/1000"));
            assertArrayEquals(pattern((int) ChannelBodyStream.MIN_BODY), get(s, "/body/" + (int) ChannelBodyStream.MIN_BODY));
            assertArrayEquals(pattern(large), get(s, "/body/" + large));
            assertArrayEquals(pattern(large), get(s, "/direct/" + large));
            assertArrayEquals(pattern(1000), get(s, "/body/1000"));
            assertArrayEquals(pattern(large), get(s, "/pieces/" + large));
            assertArrayEquals(pattern(large), get(s, "/direct-only/" + large));
        } finally {
            server.stop();
        }
        // The channel is found on this Helidon (a version where it is not would fall back silently, slower): fails here.
        assertEquals(8, seen.size());
        assertTrue(seen.stream().allMatch(Seen::channel));
        long large = 5L * AnswerWriter.WRITE_SLICE + 12_345;
        // The access log's byte count: the large bodies and the one at the threshold went to the channel, the small did not.
        assertEquals(Arrays.asList(large, -1L, ChannelBodyStream.MIN_BODY, large, large, -1L, large, large),
                seen.stream().map(Seen::sent).toList());
    }

    @Test
    void aBodyClosedShortCutsTheConnection() throws Exception {
        ConcurrentLinkedQueue<Seen> seen = new ConcurrentLinkedQueue<>();
        WebServer server = start(false, seen);
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(10_000);
            int declared = 4 * AnswerWriter.WRITE_SLICE;
            // The client gets fewer bytes than the Content-Length, then the end of the stream: never a wait for bytes
            // that will not come, nor the next answer read as the rest of this one.
            byte[] got = get(s, "/short/" + declared);
            assertEquals(AnswerWriter.FIRST_WRITE + declared / 2, got.length);
            assertArrayEquals(Arrays.copyOf(pattern(declared), got.length), got);
            assertThrows(IOException.class, () -> get(s, "/body/1000"));
        } finally {
            server.stop();
        }
        assertEquals(AnswerWriter.FIRST_WRITE + 4L * AnswerWriter.WRITE_SLICE / 2, seen.peek().sent());
    }

    @Test
    void helidonsNioSocketFallsBackToItsStream() throws Exception {
        ConcurrentLinkedQueue<Seen> seen = new ConcurrentLinkedQueue<>();
        WebServer server = start(true, seen);
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(10_000);
            int large = 3 * AnswerWriter.WRITE_SLICE + 7;
            assertArrayEquals(pattern(large), get(s, "/body/" + large));
        } finally {
            server.stop();
        }
        assertFalse(seen.peek().channel());
        assertEquals(-1, seen.peek().sent());
    }
}
