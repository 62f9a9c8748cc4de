package org.openxet.gates;

import io.helidon.http.HeaderNames;
import io.helidon.webserver.WebServer;
import org.openxet.http.RawHttp;

import java.io.OutputStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What handing a body of the answer's size over costs without any reconstruction work: a bare Helidon server on
 * another loopback port whose handler streams ready-made bytes through {@code res.outputStream()} in 1 MiB writes
 * ({@code stream}), or sends them as one array with a Content-Length ({@code send}). Same client, same one-at-a-time
 * timing to the last byte. Both use blocking socket streams ({@code useNio(false)}) as {@code OpenxetServer.start}
 * does. Two such servers run side by side, one with TCP_NODELAY as {@code OpenxetServer.start} sets it
 * ({@code nodelay}) and one with Helidon's default, Nagle on ({@code nagle}); requests alternate between them, so both
 * see the same neighbours. The gap between {@code nodelay} and the real answer's HTTP time is the server's
 * own work; the baseline itself is Helidon, the socket and the client.
 */
final class TransportBaseline {
    /** The server's own write size ({@code AnswerWriter.WRITE_SLICE}), so the floor is the one its answers meet. */
    static final int WRITE = 1024 * 1024;

    private TransportBaseline() {
    }

    private static WebServer start(byte[] body, boolean noDelay) {
        return WebServer.builder().host("127.0.0.1").port(0).shutdownHook(false).useNio(false)
                .featuresDiscoverServices(false)
                .connectionOptions(o -> o.tcpNoDelay(noDelay))
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
    }

    static Map<String, Object> measure(long bodyBytes, int samples) throws Exception {
        byte[] body = new byte[(int) bodyBytes];
        Arrays.fill(body, (byte) 'x');
        WebServer[] servers = {start(body, true), start(body, false)};
        String[] names = {"nodelay", "nagle"};
        Map<String, Object> out = new LinkedHashMap<>();
        RawHttp[] http = {new RawHttp("127.0.0.1", servers[0].port()), new RawHttp("127.0.0.1", servers[1].port())};
        try {
            for (String path : new String[]{"/stream", "/send"}) {
                byte[][] request = new byte[2][];
                double[][] t = new double[2][samples];
                long[] cpu = new long[2];
                long[] clientCpu = new long[2];
                for (int s = 0; s < 2; s++) {
                    request[s] = RawHttp.get("127.0.0.1", servers[s].port(), path, "-", null);
                    for (int i = 0; i < 10; i++) http[s].exchange(request[s], null);
                }
                for (int i = 0; i < samples; i++) {
                    for (int s = 0; s < 2; s++) {
                        JvmCounters before = JvmCounters.now();
                        RawHttp.Response r = http[s].exchange(request[s], null);
                        JvmCounters c = JvmCounters.now().since(before);
                        if (r.status() != 200 || r.bodyBytes() != bodyBytes) {
                            throw new IllegalStateException("baseline answered " + r.status() + ", " + r.bodyBytes() + " bytes");
                        }
                        t[s][i] = r.millis();
                        cpu[s] += c.cpuNanos();
                        clientCpu[s] += c.callerCpuNanos();
                    }
                }
                for (int s = 0; s < 2; s++) {
                    System.out.printf("  %-7s %-7s: p50 %s  min %s  p99 %s  (%.1f ms process CPU a request, %.1f of it the client)%n",
                            path, names[s], Stats.ms(Stats.percentile(t[s], 50)), Stats.ms(Stats.min(t[s])),
                            Stats.ms(Stats.percentile(t[s], 99)), cpu[s] / 1e6 / samples, clientCpu[s] / 1e6 / samples);
                    String key = path.substring(1) + "_" + names[s];
                    out.put(key + "_p50", Stats.r3(Stats.percentile(t[s], 50)));
                    out.put(key + "_min", Stats.r3(Stats.min(t[s])));
                    out.put(key + "_cpu", Stats.r3(cpu[s] / 1e6 / samples));
                }
            }
        } finally {
            for (RawHttp h : http) h.close();
            for (WebServer s : servers) s.stop();
        }
        return out;
    }

    /**
     * The floor under each full answer: a body of exactly its size through {@link BytesFloor}, as many times as the
     * gate times each answer, the sizes alternating. Each transfer alternates with the same bytes from
     * {@link OffHeapBodyServer} ({@code offheap_*}): a plain JDK server sending them from direct memory in one gathering
     * write, with no HTTP server and no copy at all: what no rendering could beat.
     */
    static Map<String, Object> floors(Map<String, Long> sizes, int samples) throws Exception {
        long largest = sizes.values().stream().mapToLong(Long::longValue).max().orElse(0);
        Map<String, Object> out = new LinkedHashMap<>();
        try (BytesFloor floor = new BytesFloor(largest);
             OffHeapBodyServer offHeap = new OffHeapBodyServer(sizes);
             RawHttp direct = new RawHttp("127.0.0.1", offHeap.port())) {
            String[] labels = sizes.keySet().toArray(String[]::new);
            byte[][] offHeapRequest = new byte[labels.length][];
            double[][][] t = new double[labels.length][2][samples]; // [size][0] through Helidon, [size][1] off-heap
            for (int s = 0; s < labels.length; s++) {
                offHeapRequest[s] = RawHttp.get("127.0.0.1", offHeap.port(), "/floor/" + labels[s], "-", null);
                for (int i = 0; i < 10; i++) {
                    floor.transfer(sizes.get(labels[s]));
                    direct.exchange(offHeapRequest[s], null);
                }
            }
            for (int i = 0; i < samples; i++) {
                for (int s = 0; s < labels.length; s++) {
                    for (int k = 0; k < 2; k++) {
                        int v = (i + k) % 2; // each transfer alternates with the other
                        if (v == 0) {
                            t[s][0][i] = floor.transfer(sizes.get(labels[s])).millis();
                        } else {
                            RawHttp.Response r = direct.exchange(offHeapRequest[s], null);
                            if (r.status() != 200 || r.bodyBytes() != sizes.get(labels[s])) {
                                throw new IllegalStateException("floor answered " + r.status() + ", " + r.bodyBytes() + " bytes");
                            }
                            t[s][1][i] = r.millis();
                        }
                    }
                }
            }
            for (int s = 0; s < labels.length; s++) {
                double[] helidon = t[s][0];
                double[] offHeapMs = t[s][1];
                System.out.printf("  %-8s (%,d bytes): p50 %s  min %s  p99 %s;  off-heap, no Helidon: p50 %s  p99 %s%n",
                        labels[s], sizes.get(labels[s]), Stats.ms(Stats.percentile(helidon, 50)), Stats.ms(Stats.min(helidon)),
                        Stats.ms(Stats.percentile(helidon, 99)), Stats.ms(Stats.percentile(offHeapMs, 50)),
                        Stats.ms(Stats.percentile(offHeapMs, 99)));
                Map<String, Object> one = new LinkedHashMap<>();
                one.put("p50", Stats.r3(Stats.percentile(helidon, 50)));
                one.put("p99", Stats.r3(Stats.percentile(helidon, 99)));
                one.put("min", Stats.r3(Stats.min(helidon)));
                one.put("offheap_p50", Stats.r3(Stats.percentile(offHeapMs, 50)));
                one.put("offheap_p99", Stats.r3(Stats.percentile(offHeapMs, 99)));
                out.put(labels[s], one);
            }
        }
        return out;
    }
}
