package org.openxet.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
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

/** A real {@code serve} reads its SQLite index into the page cache before it says ready, and says so in one line. */
class ServeIndexPreloadTest {
    private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)");
    private static final Pattern PRELOADED =
            Pattern.compile("openxet: the index: 0\\.00 GB of 0\\.00 GB read into the page cache in \\d+ ms");

    @TempDir
    Path dir;

    @Test
    void aStartingNodeReadsItsIndexBeforeItIsReady() throws Exception {
        List<String> lines = startUntilReadyThenKill("60s");
        assertEquals(1, lines.stream().filter(l -> l.startsWith("openxet: the index:")).count(), String.join("\n", lines));
        assertTrue(lines.stream().anyMatch(l -> PRELOADED.matcher(l).matches()), String.join("\n", lines));
    }

    @Test
    void zeroSecondsReadsNothing() throws Exception {
        List<String> lines = startUntilReadyThenKill("0s");
        assertTrue(lines.stream().noneMatch(l -> l.contains("page cache")), String.join("\n", lines));
    }

    /**
     * Starts serve with the read limited to {@code preload}, waits for /ready 200, then SIGKILLs it: what it printed
     * by then (a line printed before ready is in the pipe when ready says 200; the reader is given 500 ms for it).
     */
    private List<String> startUntilReadyThenKill(String preload) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(CliTest.serveCommand(dir.resolve(preload))).redirectErrorStream(true);
        pb.environment().put("OPENXET_WARMUP_DURATION", "0s");
        pb.environment().put("OPENXET_WARMUP_INDEX_PRELOAD", preload);
        Process p = pb.start();
        List<String> lines = new CopyOnWriteArrayList<>();
        Thread reader = Thread.ofVirtual().start(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l; (l = out.readLine()) != null; ) lines.add(l);
            } catch (IOException closed) {
                // the process was killed
            }
        });
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            int port = -1;
            while (port < 0) {
                assertTrue(System.nanoTime() < deadline, "not listening within 30 s: " + lines);
                port = lines.stream().map(LISTENING::matcher).filter(Matcher::find).mapToInt(m -> Integer.parseInt(m.group(1)))
                        .findFirst().orElse(-1);
                Thread.sleep(20);
            }
            assertEquals(200, CliTest.awaitReady(port, Duration.ofNanos(deadline - System.nanoTime())).statusCode(),
                    "not ready within 30 s");
            Thread.sleep(500);
            return List.copyOf(lines);
        } finally {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
            reader.join(5_000);
        }
    }
}
