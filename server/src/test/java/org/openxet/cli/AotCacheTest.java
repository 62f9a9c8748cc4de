package org.openxet.cli;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The AOT cache's two ends as the launcher uses them: a cache the JVM cannot map is one line of the server's start-up
 * and no error (the launcher's {@code -Xlog:aot*=off} silences the JVM's own several lines), and the training run
 * drives every hot route of a real server without one unexpected answer.
 */
class AotCacheTest {
    private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)");

    @Test
    void aCacheTheJvmCannotUseIsOneLineAndTheServerServesWithoutIt() throws Exception {
        Path dir = Files.createTempDirectory("openxet-cache-test");
        Path garbage = dir.resolve("openxet-other-jdk.aot");
        Files.write(garbage, new byte[64 * 1024]); // no AOT cache's header
        ProcessBuilder pb = new ProcessBuilder(CliTest.serveCommand(dir.resolve("data"),
                List.of("-XX:AOTCache=" + garbage, "-Xlog:aot*=off")));
        pb.environment().put("OPENXET_WARMUP_DURATION", "0s");
        pb.redirectErrorStream(true);
        Process p = pb.start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            List<String> lines = new ArrayList<>();
            int port = -1;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            for (String l; System.nanoTime() < deadline && (l = out.readLine()) != null; ) {
                lines.add(l);
                Matcher m = LISTENING.matcher(l);
                if (m.find()) port = Integer.parseInt(m.group(1));
                if (l.startsWith("  token:")) break; // the last line of the start-up banner
            }
            assertTrue(port > 0, String.join("\n", lines));
            List<String> aot = lines.stream().filter(l -> l.contains("AOT") || l.contains("[aot")).toList();
            assertEquals(List.of("  start:  the AOT cache " + garbage + " could not be used (made with other JVM options"
                    + " or another JDK); started without it, the first seconds are slower"), aot);
            assertTrue(lines.stream().noneMatch(l -> l.contains("error") || l.contains("[warning]")), String.join("\n", lines));
            // Ready once the index is read into the page cache (warmup.index-preload, after the banner); an empty
            // index takes milliseconds.
            HttpResponse<String> ready = CliTest.awaitReady(port, Duration.ofSeconds(30));
            assertEquals(200, ready.statusCode(), ready.body());
        } finally {
            p.destroy();
            p.waitFor(30, TimeUnit.SECONDS);
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    @Test
    void theTrainingRunDrivesEveryHotRouteWithoutAnUnexpectedAnswer() {
        // It fails on any answer but the one it expects (TrainAotCommand.send), so exit 0 means every route answered.
        CliTest.Run r = CliTest.run("train-aot", "--seconds", "1", "--threads", "2");
        assertEquals(0, r.exit(), r.out() + "\n" + r.err());
        assertTrue(r.out().matches("(?s).*openxet train-aot: [0-9,]+ requests in [0-9.]+ s.*"), r.out());
    }
}
