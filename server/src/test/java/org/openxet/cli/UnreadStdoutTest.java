package org.openxet.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A real {@code serve} whose stdout nobody reads for a while (a stuck log shipper, a full pipe) keeps answering: no
 * request waits for its access-log line, and once stdout is read again every line comes out. (Lines past the queue's
 * capacity are dropped and counted: AsyncConsoleHandlerTest.)
 */
class UnreadStdoutTest {
    private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)");
    /** Access-log lines of about 100 bytes each: several times a pipe's 64 KiB. */
    private static final int REQUESTS = 4_000;

    private static List<String> missingRouteLines(List<String> lines) {
        return lines.stream().filter(l -> l.contains("AccessLog") && l.contains(" GET /no/such/route/")).toList();
    }

    @TempDir
    Path dir;

    @Test
    void aServerWhoseStdoutIsNotReadAnswersEveryRequestAndCountsTheLinesItDropped() throws Exception {
        ProcessBuilder pb = new ProcessBuilder(CliTest.serveCommand(dir)).redirectErrorStream(true);
        pb.environment().put("OPENXET_WARMUP_DURATION", "0s");
        Process p = pb.start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            int port = -1;
            for (String l; port < 0 && (l = out.readLine()) != null; ) {
                Matcher m = LISTENING.matcher(l);
                if (m.find()) port = Integer.parseInt(m.group(1));
            }
            assertTrue(port > 0, "serve did not say where it listens");
            assertEquals(200, CliTest.awaitReady(port, Duration.ofSeconds(30)).statusCode());

            // From here on nobody reads the pipe.
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            long start = System.nanoTime();
            for (int i = 0; i < REQUESTS; i++) {
                URI missing = URI.create("http://127.0.0.1:" + port + "/no/such/route/" + i);
                HttpRequest get = HttpRequest.newBuilder(missing).timeout(Duration.ofSeconds(10)).build();
                assertEquals(404, http.send(get, HttpResponse.BodyHandlers.discarding()).statusCode(), "request " + i);
            }
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(tookMillis < 60_000, REQUESTS + " requests took " + tookMillis + " ms");

            // Read again: every line comes out, in order (the queue holds more lines than these requests wrote).
            List<String> lines = new CopyOnWriteArrayList<>();
            Thread reader = Thread.ofVirtual().start(() -> {
                try {
                    for (String l; (l = out.readLine()) != null; ) lines.add(l);
                } catch (IOException closed) {
                    // the process was killed
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (missingRouteLines(lines).size() < REQUESTS && System.nanoTime() < deadline) Thread.sleep(50);
            List<String> logged = missingRouteLines(lines);
            assertEquals(REQUESTS, logged.size(), "access-log lines of the " + REQUESTS + " requests");
            for (int i = 0; i < REQUESTS; i++) {
                assertTrue(logged.get(i).contains(" GET /no/such/route/" + i + " 404 "), logged.get(i));
            }
            assertTrue(lines.stream().noneMatch(l -> l.contains("log lines were dropped")), "no line was dropped");
            reader.interrupt();
        } finally {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
