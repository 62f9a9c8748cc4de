package org.openxet.gates;

import io.helidon.http.HeaderNames;
import io.helidon.webserver.WebServer;
import org.openxet.http.RawHttp;
import org.openxet.http.ResponseChannel;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;

/**
 * The floor under a large answer: a bare Helidon route on another loopback port, {@code GET /floor/N}, that writes N
 * ready-made bytes the way the server writes a rendered answer (blocking sockets, TCP_NODELAY, a 64 KiB first write
 * with the headers, then 1 MiB writes to the connection's channel through a direct staging buffer:
 * {@link ResponseChannel}), with no index, plan or JSON. Timed on its own kept connection by the same client as the
 * answers, so an answer's time less its bytes' time is what the server's own work adds, on this host in this minute.
 */
final class BytesFloor implements AutoCloseable {
    /** The server's first write of a response ({@code AnswerWriter.FIRST_WRITE}). */
    private static final int FIRST_WRITE = 64 * 1024;

    private final WebServer server;
    private final RawHttp http;
    private final long maxBytes;

    BytesFloor(long maxBytes) throws IOException {
        this.maxBytes = maxBytes;
        byte[] body = new byte[Math.toIntExact(maxBytes)];
        Arrays.fill(body, (byte) 'x');
        server = WebServer.builder().host("127.0.0.1").port(0).shutdownHook(false).useNio(false)
                // No features found on the class path: Helidon would add an access log, work the server's bytes
                // alone do not include, and a line per request on the gate's output.
                .featuresDiscoverServices(false)
                .connectionOptions(o -> o.tcpNoDelay(true))
                .routing(r -> r.get("/floor/{n}", (req, res) -> {
                    int n = Integer.parseInt(req.path().pathParameters().get("n"));
                    res.header(HeaderNames.CONTENT_TYPE, "application/json");
                    res.contentLength(n);
                    try (OutputStream out = ResponseChannel.body(req, res, n)) {
                        int first = Math.min(FIRST_WRITE, n);
                        out.write(body, 0, first);
                        for (int off = first; off < n; off += TransportBaseline.WRITE) {
                            out.write(body, off, Math.min(TransportBaseline.WRITE, n - off));
                        }
                    }
                }))
                .build().start();
        try {
            http = new RawHttp("127.0.0.1", server.port());
        } catch (IOException e) {
            server.stop();
            throw e;
        }
    }

    int port() {
        return server.port();
    }

    /** The request for {@code n} bytes. */
    byte[] request(long n) {
        if (n < 0 || n > maxBytes) throw new IllegalArgumentException("a floor of " + n + " bytes; at most " + maxBytes);
        return RawHttp.get("127.0.0.1", server.port(), "/floor/" + n, "-", null);
    }

    /** {@code n} bytes through the route on its kept connection, timed from the request's send to the last byte. */
    RawHttp.Response transfer(long n) throws IOException {
        RawHttp.Response r = http.exchange(request(n), null);
        if (r.status() != 200 || r.bodyBytes() != n) {
            throw new IllegalStateException("floor answered " + r.status() + ", " + r.bodyBytes() + " bytes for " + n);
        }
        return r;
    }

    @Override
    public void close() {
        http.close();
        server.stop();
    }
}
