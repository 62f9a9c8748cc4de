package org.openxet.gates;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A separately started {@code openxet serve} for the load gate and the rig: its command line, and its port. */
final class ServerProcess {
    /** The options it reads ({@code gates/run} refuses any other). */
    static final Set<String> OPTIONS = Set.of("server-jar", "server-opts");

    /** The server's line saying where it listens, whole (a line ends in a newline once it is all written). */
    private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)\\R");
    /** How often {@link #awaitPort} reads the log while the server starts (the restart gate's listening times). */
    private static final long POLL_MILLIS = 2;

    private ServerProcess() {
    }

    /**
     * {@code java -jar server/target/openxet.jar serve} as ./openxet runs it, on loopback and any free port: from the
     * launcher's AOT cache when gates/run passed its options. Without it, the rig's first step met a JVM no user's node
     * starts as: at 1,000 req/s on PostgreSQL, uploads were answered 503 after waiting 5 s for an index connection
     * (docs/BENCHMARKS-HISTORY.md, "A node's first second on the AMD VM").
     */
    static Process start(Args args, Path data, Path log, String indexUrl) throws Exception {
        return start(args, data, log, indexUrl, launcherAot(args), Map.of());
    }

    /**
     * The launcher's options for its AOT cache, as gates/run passes them (none when it made no cache), when the server
     * is the launcher's jar. The cache holds that jar's classes, and JDK 25 maps it for another jar without a word and
     * runs the cached classes instead of the jar's (docs/DESIGN.md, "Starting warm"): an A/B of two builds through
     * {@code --server-jar} ran one build twice. So a {@code --server-jar} other than the launcher's starts without
     * it, said in one line; {@code --server-opts -XX:AOTCache=FILE} may name a cache made from that jar.
     */
    static List<String> launcherAot(Args args) {
        String options = System.getProperty(RestartGate.AOT_ARGS_PROPERTY, "").trim();
        if (options.isEmpty()) return List.of();
        String jar = args.string("server-jar", "");
        String launcherJar = System.getProperty("openxet.server.jar", "");
        if (!jar.isEmpty() && (launcherJar.isEmpty() || !sameFile(jar, launcherJar))) {
            System.out.println("server: " + jar + " is not the launcher's jar, so it starts without the launcher's AOT"
                    + " cache (that jar's classes); --server-opts -XX:AOTCache=FILE names one made from " + jar);
            return List.of();
        }
        return List.of(options.split("\\s+"));
    }

    private static boolean sameFile(String a, String b) {
        return Path.of(a).toAbsolutePath().normalize().equals(Path.of(b).toAbsolutePath().normalize());
    }

    /**
     * {@link #start(Args, Path, Path, String)} with {@code jvm} options after ./openxet's own (an AOT cache) and
     * {@code env} set in the server's environment (settings, as an operator sets them).
     */
    static Process start(Args args, Path data, Path log, String indexUrl, List<String> jvm, Map<String, String> env)
            throws Exception {
        List<String> cmd = command(args, data, jvm);
        System.out.println("starting: " + String.join(" ", cmd));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        if (indexUrl != null) {
            // As an operator sets a node up: the index in the environment, the data dir (and its keys) as prepared.
            pb.environment().put("OPENXET_INDEX_URL", indexUrl);
        }
        pb.environment().putAll(env);
        return startLogged(pb, log);
    }

    /** The server's command line: ./openxet's JVM flags, the gate's {@code --server-opts}, then {@code jvm}. */
    static List<String> command(Args args, Path data, List<String> jvm) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED",
                "-Dopenxet.native.dir=" + System.getProperty("openxet.native.dir", "")));
        // sqlite-jdbc's library where ./openxet names it (scripts/env.sh, sqlite_native_ensure), when gates/run did.
        for (String p : List.of("org.sqlite.lib.path", "org.sqlite.lib.name")) {
            if (System.getProperty(p) != null) cmd.add("-D" + p + "=" + System.getProperty(p));
        }
        // ./openxet's own JVM flags (gates/run passes them), then the gate's --server-opts, which win.
        String opts = System.getProperty("openxet.server.jvm", "") + " " + args.string("server-opts", "");
        for (String o : opts.trim().split("\\s+")) if (!o.isEmpty()) cmd.add(o);
        cmd.addAll(jvm);
        String jar = args.string("server-jar", System.getProperty("openxet.server.jar", ""));
        if (jar.isEmpty()) {
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "org.openxet.cli.Main"));
        } else {
            cmd.addAll(List.of("-jar", jar));
        }
        cmd.addAll(List.of("serve", "--host", "127.0.0.1", "--port", "0", "--data", data.toString()));
        return cmd;
    }

    /**
     * Starts {@code pb} with its output and errors appended to {@code log}, emptied first. The process writes there
     * itself: relayed through a pipe by a thread of this JVM, which shares the cores with the load it generates, a
     * server's writes (the access log, a line per request) blocked whenever that thread fell behind, each holding the
     * log handler's lock that every request's line waits for (docs/BENCHMARKS.md, "Machine and method").
     */
    static Process startLogged(ProcessBuilder pb, Path log) throws Exception {
        Files.writeString(log, "", StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING);
        pb.redirectErrorStream(true);
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        return pb.start();
    }

    /** Reads the server's log (its output) until it says where it listens; the server writes the rest there itself. */
    static int awaitPort(Process p, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (true) {
            boolean alive = p.isAlive(); // before the read: a process found ended has written all it will
            // Bytes, not readString: the last line may end in part of a character.
            String seen = new String(Files.readAllBytes(log), StandardCharsets.UTF_8);
            Matcher m = LISTENING.matcher(seen);
            if (m.find()) return Integer.parseInt(m.group(1));
            if (!alive || System.nanoTime() > deadline) {
                throw new IllegalStateException("openxet serve did not start:\n" + seen);
            }
            Thread.sleep(POLL_MILLIS);
        }
    }
}
