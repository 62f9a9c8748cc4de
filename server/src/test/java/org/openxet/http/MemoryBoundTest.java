package org.openxet.http;

import org.junit.jupiter.api.Test;
import org.openxet.protocol.xorb.XorbFormat;
import org.openxet.service.Access;
import org.openxet.service.Secrets;
import org.openxet.service.Tokens;
import org.openxet.testing.SyntheticXorb;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A real server process with a 512 MiB heap under the worst mix of uploads at once: slow senders declaring maximal
 * xorbs and shards and trickling, fast senders of maximal bodies at full speed, and honest uploads among them. Every
 * answer is a 200, a 400 (the garbage bodies), a 408 or a 503 with Retry-After, never a 500; the server never runs out
 * of memory; every honest upload succeeds, retrying its 503s as the stock client does.
 */
class MemoryBoundTest {
    private static final Duration LOAD = Duration.ofSeconds(25);

    @Test
    void noMixOfUploadsExhaustsA512MiBHeap() throws Exception {
        Path data = Files.createTempDirectory("openxet-memory");
        Path log = data.resolveSibling(data.getFileName() + ".log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx512m", "-XX:G1HeapRegionSize=1m",
                "-XX:+HeapDumpOnOutOfMemoryError", "-XX:HeapDumpPath=" + data.resolveSibling(data.getFileName() + ".hprof"),
                "--enable-native-access=ALL-UNNAMED",
                "-Dopenxet.native.dir=" + System.getProperty("openxet.native.dir", ""),
                "-cp", System.getProperty("java.class.path"), "org.openxet.cli.Main", "serve",
                "--host", "127.0.0.1", "--port", "0", "--data", data.toString());
        pb.redirectErrorStream(true);
        Process server = pb.start();
        try {
            int port = DurabilityTest.awaitPort(server, log);
            String write = new Tokens(Secrets.loadOrCreate(data).tokenKey()).mint("user/repo", Access.WRITE, Duration.ofHours(1));
            Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
            long end = System.nanoTime() + LOAD.toNanos();
            List<Thread> load = new ArrayList<>();
            List<Socket> slow = new ArrayList<>();

            // Slow senders: 8 shards declaring 60 MB and 8 xorbs declaring 64 MiB, 5 KB/s each.
            for (int i = 0; i < 16; i++) {
                boolean shard = i % 2 == 0;
                String path = shard ? "/v1/shards" : "/v1/xorbs/default/" + "%064x".formatted(i);
                long declared = shard ? 60_000_000L : XorbFormat.MAX_UPLOAD_BYTES;
                Socket s = new Socket("127.0.0.1", port);
                slow.add(s);
                load.add(Thread.ofVirtual().start(() -> trickle(s, path, write, declared, end)));
            }
            // Fast senders of maximal garbage: xorb bodies of 64 MiB and shard bodies of 64 MiB at full speed.
            byte[] garbage = new byte[(int) XorbFormat.MAX_UPLOAD_BYTES];
            new java.util.Random(17).nextBytes(garbage);
            for (int i = 0; i < 4; i++) {
                int n = i;
                load.add(Thread.ofVirtual().start(() -> {
                    while (System.nanoTime() < end) {
                        String path = n % 2 == 0 ? "/v1/xorbs/default/" + "%064x".formatted(1000 + n) : "/v1/shards";
                        statuses.computeIfAbsent(post(port, path, write, garbage), k -> new AtomicInteger())
                                .incrementAndGet();
                    }
                }));
            }
            // Honest uploads: 8 MiB xorbs, each retried on 503 until it is stored.
            AtomicInteger stored = new AtomicInteger();
            int honest = 6;
            for (int i = 0; i < honest; i++) {
                SyntheticXorb x = SyntheticXorb.of(128, 64 * 1024, 500 + i);
                load.add(Thread.ofVirtual().start(() -> {
                    long giveUp = System.nanoTime() + LOAD.toNanos() + Duration.ofSeconds(60).toNanos();
                    while (System.nanoTime() < giveUp) {
                        int status = post(port, "/v1/xorbs/default/" + x.hash().hex(), write, x.body());
                        statuses.computeIfAbsent(status, k -> new AtomicInteger()).incrementAndGet();
                        if (status == 200) {
                            stored.incrementAndGet();
                            return;
                        }
                        sleep(1000);
                    }
                }));
            }
            for (Thread t : load) t.join(Duration.ofSeconds(150).toMillis());
            for (Socket s : slow) s.close();

            System.out.println("MemoryBoundTest: statuses " + statuses + ", " + stored.get() + " of " + honest + " honest uploads stored");
            assertTrue(server.isAlive(), "the server is still running");
            String output = Files.readString(log);
            assertFalse(output.contains("OutOfMemoryError"), "no OutOfMemoryError in the server's log");
            assertFalse(statuses.containsKey(500), "no 500: " + statuses);
            assertTrue(Set.of(200, 400, 408, 503).containsAll(statuses.keySet()), "statuses " + statuses);
            assertEquals(honest, stored.get(), "every honest upload stored; statuses " + statuses);
            // And the server still takes an upload at once.
            SyntheticXorb after = SyntheticXorb.of(16, 64 * 1024, 99);
            assertEquals(200, post(port, "/v1/xorbs/default/" + after.hash().hex(), write, after.body()));
        } finally {
            server.destroyForcibly().waitFor();
        }
    }

    /** Sends a request head declaring {@code declared} bytes, then 5 KB a second until {@code end}. */
    private static void trickle(Socket s, String path, String token, long declared, long end) {
        try {
            OutputStream out = s.getOutputStream();
            out.write(("POST " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token + "\r\nContent-Length: "
                    + declared + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            byte[] piece = new byte[5_000];
            while (System.nanoTime() < end) {
                out.write(piece);
                out.flush();
                Thread.sleep(1000);
            }
        } catch (Exception closedByServerOrTest) {
            // a 408 or 503 answered and closed, or the test is over
        }
    }

    /**
     * POSTs {@code body} over a raw socket in 1 MiB pieces and returns the answer's status: an answer that comes before
     * the body is all sent (a 503, a 413) is read there, as a client that watches its socket would. -1: no answer.
     */
    private static int post(int port, String path, String token, byte[] body) {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(120_000);
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            out.write(("POST " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token + "\r\nContent-Length: "
                    + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            try {
                for (int at = 0; at < body.length && in.available() == 0; at += 1 << 20) {
                    out.write(body, at, Math.min(1 << 20, body.length - at));
                }
                out.flush();
            } catch (java.io.IOException answeredAndClosed) {
                // read what the server said
            }
            String answer = UploadRejectionTest.readResponse(in);
            if (!answer.startsWith("HTTP/1.1 ")) return -1;
            return Integer.parseInt(answer.substring(9, 12));
        } catch (java.io.IOException e) {
            return -1;
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
