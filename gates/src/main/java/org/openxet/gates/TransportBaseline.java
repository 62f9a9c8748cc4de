package org.openxet.gates;

import io.helidon.http.HeaderNames;
import io.helidon.webserver.WebServer;

import java.io.OutputStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What handing a body of the answer's size over costs without any reconstruction work: a bare Helidon server on
 * another loopback port whose handler streams ready-made bytes through {@code res.outputStream()} in the same
 * 256 KiB writes as the answer writer ({@code stream}), or sends them as one array with a Content-Length
 * ({@code send}). Same client, same one-at-a-time timing to the last byte. The gap between this and the real answer's
 * HTTP time is the server's own work; this itself is Helidon, the socket and the client.
 */
final class TransportBaseline {
    static final int WRITE = 256 * 1024;

    private TransportBaseline() {
    }

    static Map<String, Object> measure(long bodyBytes, int samples, String label) throws Exception {
        byte[] body = new byte[(int) bodyBytes];
        Arrays.fill(body, (byte) 'x');
        // The socket options OpenxetServer.start sets that matter for a response: TCP_NODELAY (Helidon's default is
        // off, and then the answer's last segment waits for the client's delayed ACK).
        WebServer server = WebServer.builder().host("127.0.0.1").port(0).shutdownHook(false)
                .connectionOptions(o -> o.tcpNoDelay(true))
                .routing(r -> r
                        .get("/stream", (req, res) -> {
                            res.header(HeaderNames.CONTENT_TYPE, "application/json");
                            try (OutputStream out = res.outputStream()) {
                                for (int off = 0; off < body.length; off += WRITE) {
                                    out.write(body, off, Math.min(WRITE, body.length - off));
                                }
                            }
                        })
                        .get("/send", (req, res) -> {
                            res.header(HeaderNames.CONTENT_TYPE, "application/json");
                            res.send(body);
                        }))
                .build().start();
        Map<String, Object> out = new LinkedHashMap<>();
        try (RawHttp http = new RawHttp("127.0.0.1", server.port())) {
            for (String path : new String[]{"/stream", "/send"}) {
                byte[] request = RawHttp.get("127.0.0.1", server.port(), path, "-", null);
                for (int i = 0; i < 10; i++) http.exchange(request, null);
                double[] t = new double[samples];
                JvmCounters before = JvmCounters.now();
                for (int i = 0; i < samples; i++) {
                    RawHttp.Response r = http.exchange(request, null);
                    if (r.status() != 200 || r.bodyBytes() != bodyBytes) {
                        throw new IllegalStateException("baseline answered " + r.status() + ", " + r.bodyBytes() + " bytes");
                    }
                    t[i] = r.millis();
                }
                JvmCounters c = JvmCounters.now().since(before);
                System.out.printf("  transport baseline %-7s %,d bytes: p50 %s  min %s  p99 %s  (%s)%n", path, bodyBytes,
                        Stats.ms(Stats.percentile(t, 50)), Stats.ms(Stats.min(t)), Stats.ms(Stats.percentile(t, 99)),
                        c.describe(samples));
                out.put(path.substring(1) + "_p50", Stats.r3(Stats.percentile(t, 50)));
                out.put(path.substring(1) + "_min", Stats.r3(Stats.min(t)));
                out.put(path.substring(1) + "_cpu", Stats.r3(c.cpuMillisPer(samples)));
            }
        } finally {
            server.stop();
        }
        return out;
    }
}
