package org.openxet.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * sqlite-jdbc's native library as the launcher names it to the JVM (scripts/env.sh, {@code sqlite_native_ensure}):
 * taken out of the jar once, so a server started that way leaves no copy of it in its temp dir, not even when killed
 * with -9. Left to itself sqlite-jdbc copies the library there at every start, and only a clean exit removes it.
 */
class SqliteLibraryTest {
    private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)");

    @Test
    void aServerGivenTheLaunchersLibraryLeavesNoCopyBehindWhenKilled(@TempDir Path dir) throws Exception {
        List<String> args = launcherNativeArgs();
        Path lib = Path.of(option(args, "-Dorg.sqlite.lib.path=")).resolve(option(args, "-Dorg.sqlite.lib.name="));
        assertTrue(Files.size(lib) > 100_000, lib + " is not sqlite-jdbc's library");

        Path bare = dir.resolve("tmp-bare");
        startServeAndKill(List.of(), bare, dir.resolve("data-bare"));
        assertEquals(1, sqliteCopies(bare), "sqlite-jdbc on its own copies its library into java.io.tmpdir");

        Path launched = dir.resolve("tmp-launched");
        startServeAndKill(args, launched, dir.resolve("data-launched"));
        assertEquals(0, sqliteCopies(launched));
    }

    /** The JVM options the launcher's function adds, for the sqlite-jdbc jar on this test's class path. */
    private static List<String> launcherNativeArgs() throws Exception {
        Path root = Path.of(System.getProperty("user.dir")).getParent();
        assertTrue(Files.exists(root.resolve("scripts/env.sh")), "not a checkout: " + root);
        String jar = Arrays.stream(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
                .filter(e -> Path.of(e).getFileName().toString().startsWith("sqlite-jdbc-")).findFirst().orElseThrow();
        Process bash = new ProcessBuilder("bash", "-c", ". scripts/env.sh && sqlite_native_ensure \"$1\""
                + " && printf '%s\\n' \"${JVM_NATIVE_ARGS[@]}\"", "sqlite-library-test", jar)
                .directory(root.toFile()).redirectErrorStream(true).start();
        String out = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, bash.waitFor(), out);
        return out.lines().filter(l -> l.startsWith("-Dorg.sqlite.")).toList();
    }

    private static String option(List<String> args, String prefix) {
        return args.stream().filter(a -> a.startsWith(prefix)).map(a -> a.substring(prefix.length())).findFirst()
                .orElseThrow(() -> new AssertionError("no " + prefix + " in " + args));
    }

    /** Starts {@code serve} (which opens the SQLite index before it listens), checks it answers, then SIGKILLs it. */
    private static void startServeAndKill(List<String> jvm, Path tmp, Path data) throws Exception {
        Files.createDirectories(tmp);
        List<String> options = new ArrayList<>(List.of("-Djava.io.tmpdir=" + tmp));
        options.addAll(jvm);
        ProcessBuilder pb = new ProcessBuilder(CliTest.serveCommand(data, options)).redirectErrorStream(true);
        pb.environment().put("OPENXET_WARMUP_DURATION", "0s");
        Process p = pb.start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            int port = -1;
            StringBuilder seen = new StringBuilder();
            for (String l; port < 0 && (l = out.readLine()) != null; ) {
                seen.append(l).append('\n');
                Matcher m = LISTENING.matcher(l);
                if (m.find()) port = Integer.parseInt(m.group(1));
            }
            assertTrue(port > 0, seen.toString());
            HttpResponse<String> health = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/health")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, health.statusCode(), health.body());
        } finally {
            p.destroyForcibly(); // SIGKILL: no shutdown hook, no deleteOnExit
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static long sqliteCopies(Path tmp) throws Exception {
        try (Stream<Path> files = Files.list(tmp)) {
            return files.filter(f -> f.getFileName().toString().matches("sqlite-.*libsqlitejdbc\\.so")).count();
        }
    }
}
