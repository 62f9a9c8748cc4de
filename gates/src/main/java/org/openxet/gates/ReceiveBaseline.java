package org.openxet.gates;

import io.helidon.webserver.WebServer;
import org.openxet.http.RawHttp;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What receiving an upload body costs without any xorb work, as {@link TransportBaseline} is for answers: the same
 * body posted to a bare Helidon route that reads it into an array of its declared length through
 * {@code req.content().inputStream()}, as openxet's {@code Bodies.read} does (blocking sockets, as
 * {@code OpenxetServer.start} sets them), alternating with a plain JDK {@code SocketChannel} server that reads it into
 * the same kind of array in 1 MiB slices. Helidon 4.5's {@code PlainSocket} reads the socket 8 KiB at a time and
 * copies every read into a new array; the second server is the same transfer without that.
 */
final class ReceiveBaseline {
    private static final int SLICE = 1024 * 1024;

    private ReceiveBaseline() {
    }

    static Map<String, Object> measure(byte[] body, int samples) throws Exception {
        WebServer helidon = WebServer.builder().host("127.0.0.1").port(0).shutdownHook(false).useNio(false)
                .featuresDiscoverServices(false)
                .connectionOptions(o -> o.tcpNoDelay(true))
                .routing(r -> r.post("/sink", (req, res) -> {
                    byte[] into = new byte[(int) req.headers().contentLength().orElseThrow()];
                    try (InputStream in = req.content().inputStream()) {
                        int n = 0;
                        for (int k; n < into.length && (k = in.read(into, n, into.length - n)) > 0; ) n += k;
                        if (n != into.length) throw new IOException("body ended after " + n + " bytes");
                    }
                    res.send();
                }))
                .build().start();
        Map<String, Object> out = new LinkedHashMap<>();
        try (PlainSink plain = new PlainSink();
             RawHttp toHelidon = new RawHttp("127.0.0.1", helidon.port());
             RawHttp toPlain = new RawHttp("127.0.0.1", plain.port())) {
            RawHttp[] via = {toHelidon, toPlain};
            byte[][] head = {RawHttp.post("127.0.0.1", helidon.port(), "/sink", null, body.length),
                    RawHttp.post("127.0.0.1", plain.port(), "/sink", null, body.length)};
            double[][] t = new double[2][samples];
            for (int i = -3; i < samples; i++) {
                for (int k = 0; k < 2; k++) {
                    int v = Math.floorMod(i + k, 2);
                    RawHttp.Response r = via[v].exchange(head[v], body, null);
                    if (r.status() != 200) throw new IllegalStateException("receive baseline answered " + r.status());
                    if (i >= 0) t[v][i] = r.millis();
                }
            }
            String[] names = {"helidon", "plain"};
            for (int v = 0; v < 2; v++) {
                double p50 = Stats.percentile(t[v], 50);
                out.put(names[v] + "_p50_ms", Stats.r3(p50));
                out.put(names[v] + "_min_ms", Stats.r3(Stats.min(t[v])));
                out.put(names[v] + "_mb_per_s", Stats.r3(body.length / 1e3 / p50));
            }
            System.out.printf("  receive alone, %,d bytes a body, %d each, alternating: through Helidon p50 %s (%.0f MB/s),"
                            + " plain SocketChannel in 1 MiB reads p50 %s (%.0f MB/s)%n", body.length, samples,
                    Stats.ms(Stats.percentile(t[0], 50)), body.length / 1e3 / Stats.percentile(t[0], 50),
                    Stats.ms(Stats.percentile(t[1], 50)), body.length / 1e3 / Stats.percentile(t[1], 50));
        } finally {
            helidon.stop();
        }
        return out;
    }

    /** Reads each request's Content-Length body into an array in 1 MiB slices and answers 200; keeps connections. */
    private static final class PlainSink extends PlainLoopbackServer {
        private static final byte[] OK = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

        PlainSink() throws IOException {
            super("receive-baseline");
            start();
        }

        @Override
        void serve(SocketChannel c) throws IOException {
            ByteBuffer head = ByteBuffer.allocate(8192);
            for (int end; (end = readHead(c, head)) >= 0; ) {
                String text = new String(head.array(), 0, end, StandardCharsets.US_ASCII).toLowerCase(Locale.ROOT);
                int at = text.indexOf("content-length:") + "content-length:".length();
                byte[] into = new byte[Integer.parseInt(text.substring(at, text.indexOf('\r', at)).trim())];
                int n = Math.min(into.length, head.position() - end);
                System.arraycopy(head.array(), end, into, 0, n);
                while (n < into.length) {
                    int k = c.read(ByteBuffer.wrap(into, n, Math.min(SLICE, into.length - n)));
                    if (k < 0) return;
                    n += k;
                }
                c.write(ByteBuffer.wrap(OK));
            }
        }
    }
}
