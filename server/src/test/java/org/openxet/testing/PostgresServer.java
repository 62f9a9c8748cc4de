package org.openxet.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A real PostgreSQL server for tests: ONE throwaway cluster per test JVM (initdb into a temp dir, listening on a free
 * loopback port, fsync off), with a fresh database per test class, stopped and deleted when the JVM exits — also when
 * it is killed, by a small watchdog process. Binaries come from {@code /usr/lib/postgresql/<version>/bin} or
 * {@code pg_config --bindir}; {@code ./run-tests} installs the {@code postgresql} package when they are missing.
 * initdb refuses to run as root, so as root every server command runs as the {@code postgres} system user.
 *
 * <p>With {@code OPENXET_TEST_POSTGRES_URL} set ({@code jdbc:postgresql://host:port/db?user=...&password=...}, a user
 * allowed to {@code CREATE DATABASE}), that server is used instead and no cluster is started.
 */
public final class PostgresServer {
    public static final String EXTERNAL_URL_VARIABLE = "OPENXET_TEST_POSTGRES_URL";
    private static final Pattern JDBC_URL = Pattern.compile("(jdbc:postgresql://[^/?]+/)([^?]*)(\\?.*)?");
    private static PostgresServer shared;

    /** Owned cluster only: its binaries, directory, port and whether commands run as the postgres user. */
    private final Path bin;
    private final Path dir;
    private final int port;
    private final boolean asPostgresUser;
    /** {@code jdbc:postgresql://host:port/} and the query that logs in (with a leading '?'). */
    private final String base;
    private final String query;
    private final String adminDatabase;
    private final AtomicInteger databases = new AtomicInteger();
    private final List<String> created = new ArrayList<>();

    private PostgresServer(Path bin, Path dir, int port, boolean asPostgresUser, String base, String query,
                           String adminDatabase) {
        this.bin = bin;
        this.dir = dir;
        this.port = port;
        this.asPostgresUser = asPostgresUser;
        this.base = base;
        this.query = query;
        this.adminDatabase = adminDatabase;
    }

    /** The server of this JVM, started on first use. */
    public static synchronized PostgresServer get() {
        if (shared == null) {
            try {
                String external = System.getenv(EXTERNAL_URL_VARIABLE);
                shared = external != null && !external.isBlank() ? external(external.trim()) : startCluster();
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException("cannot start the test PostgreSQL server: " + e.getMessage(), e);
            }
        }
        return shared;
    }

    private static PostgresServer external(String url) {
        Matcher m = JDBC_URL.matcher(url);
        if (!m.matches()) {
            throw new IllegalStateException(EXTERNAL_URL_VARIABLE + " must look like jdbc:postgresql://host:port/db?user=...");
        }
        PostgresServer s = new PostgresServer(null, null, -1, false, m.group(1), m.group(3) == null ? "" : m.group(3),
                m.group(2).isEmpty() ? "postgres" : m.group(2));
        Runtime.getRuntime().addShutdownHook(new Thread(s::dropCreatedDatabases, "test-postgres-cleanup"));
        return s;
    }

    /** A new, empty database; returns its JDBC URL (user and password included). */
    public String createDatabase(String hint) {
        String name = "openxet_" + hint.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9]", "_")
                + "_" + ProcessHandle.current().pid() + "_" + databases.incrementAndGet();
        try (Connection c = DriverManager.getConnection(url(adminDatabase)); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create test database " + name + ": " + e.getMessage(), e);
        }
        synchronized (created) {
            created.add(name);
        }
        return url(name);
    }

    public String url(String database) {
        return base + database + query;
    }

    /**
     * Makes the server unreachable until the returned handle is closed: the owned cluster is really stopped (and
     * started again on the same port); an external server, which tests cannot stop, refuses connections to
     * {@code database} and has its open ones terminated.
     */
    public Outage outage(String database) throws Exception {
        if (dir != null) {
            pgCtl("stop", "-m", "fast");
            return () -> pgCtlStart(port);
        }
        try (Connection c = DriverManager.getConnection(url(adminDatabase)); Statement s = c.createStatement()) {
            s.execute("ALTER DATABASE " + database + " WITH ALLOW_CONNECTIONS false");
            s.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + database + "'");
        }
        return () -> {
            try (Connection c = DriverManager.getConnection(url(adminDatabase)); Statement s = c.createStatement()) {
                s.execute("ALTER DATABASE " + database + " WITH ALLOW_CONNECTIONS true");
            }
        };
    }

    /** Ends an {@link #outage}. */
    public interface Outage extends AutoCloseable {
        @Override
        void close() throws Exception;
    }

    /** The database name in a JDBC URL of this server. */
    public static String databaseOf(String url) {
        Matcher m = JDBC_URL.matcher(url);
        if (!m.matches()) throw new IllegalArgumentException(url);
        return m.group(2);
    }

    // ---- the owned cluster

    private static PostgresServer startCluster() throws IOException, InterruptedException {
        Path bin = binaries();
        boolean root = "root".equals(ProcessHandle.current().info().user().orElse(""));
        Path dir = Files.createTempDirectory("openxet-pg");
        if (root) {
            // initdb refuses root; the cluster belongs to the postgres system user the package creates.
            UserPrincipal postgres = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
            Files.setOwner(dir, postgres);
        }
        PostgresServer s = null;
        IOException last = null;
        for (int attempt = 0; attempt < 3 && s == null; attempt++) {
            int port = freePort();
            PostgresServer candidate = new PostgresServer(bin, dir, port, root, "jdbc:postgresql://127.0.0.1:" + port + "/",
                    "?user=postgres", "postgres");
            if (attempt == 0) {
                candidate.run(bin.resolve("initdb").toString(), "-D", dir.resolve("data").toString(), "-A", "trust",
                        "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync");
                watchdog(candidate);
                Runtime.getRuntime().addShutdownHook(new Thread(candidate::destroy, "test-postgres-stop"));
            }
            try {
                // Another process on this machine may take the free port before the server binds it: try another.
                candidate.pgCtlStart(port);
                s = candidate;
            } catch (IOException e) {
                last = e;
            }
        }
        if (s == null) throw last;
        return s;
    }

    private void pgCtlStart(int port) throws IOException, InterruptedException {
        pgCtl("start", "-w", "-t", "60", "-l", dir.resolve("server.log").toString(), "-o",
                "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off"
                        + " -c full_page_writes=off -c max_connections=300");
    }

    private void pgCtl(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString()));
        cmd.addAll(List.of(args));
        run(cmd.toArray(String[]::new));
    }

    private void run(String... command) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        if (asPostgresUser) cmd.addAll(List.of("runuser", "-u", "postgres", "--"));
        cmd.addAll(List.of(command));
        Path out = Files.createTempFile("openxet-pg-cmd", ".log");
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile())).start();
            if (!p.waitFor(90, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", cmd) + " did not finish in 90 s");
            }
            if (p.exitValue() != 0) {
                String log = dir == null ? "" : tail(dir.resolve("server.log"));
                throw new IOException(String.join(" ", cmd) + " exited " + p.exitValue() + ": " + Files.readString(out)
                        + (log.isEmpty() ? "" : "\nserver log:\n" + log));
            }
        } finally {
            Files.deleteIfExists(out);
        }
    }

    private static String tail(Path log) throws IOException {
        if (!Files.exists(log)) return "";
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    }

    /** Stops the cluster and deletes its directory (JVM exit). */
    private void destroy() {
        try {
            pgCtl("stop", "-m", "immediate");
        } catch (IOException | InterruptedException ignored) {
            // already stopped (or never started): the directory goes either way
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temp dir left behind is harmless
        }
    }

    /**
     * A detached shell that stops the cluster and removes its directory once this JVM is gone, however it ended (a
     * surefire fork killed after a timeout runs no shutdown hook; the server would otherwise run on).
     */
    private static void watchdog(PostgresServer s) throws IOException {
        String stop = (s.asPostgresUser ? "runuser -u postgres -- " : "") + s.bin.resolve("pg_ctl") + " -D "
                + s.dir.resolve("data") + " -m immediate stop";
        String script = "while kill -0 " + ProcessHandle.current().pid() + " 2>/dev/null; do sleep 1; done; "
                + stop + " >/dev/null 2>&1; rm -rf " + s.dir;
        new ProcessBuilder("setsid", "sh", "-c", script).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile())).start();
    }

    private void dropCreatedDatabases() {
        List<String> names;
        synchronized (created) {
            names = List.copyOf(created);
        }
        try (Connection c = DriverManager.getConnection(url(adminDatabase)); Statement s = c.createStatement()) {
            for (String name : names) {
                s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            }
        } catch (SQLException ignored) {
            // leftover test databases on an operator's server are named openxet_*_<pid>_<n>
        }
    }

    private static Path binaries() throws IOException, InterruptedException {
        List<Path> found = new ArrayList<>();
        Path lib = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(lib)) {
            try (Stream<Path> versions = Files.list(lib)) {
                versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("initdb"))).forEach(found::add);
            }
        }
        if (!found.isEmpty()) {
            // The newest major version (directory names are the major numbers).
            return found.stream().max(Comparator.comparingInt(b -> versionOf(b.getParent().getFileName().toString()))).orElseThrow();
        }
        try {
            Process p = new ProcessBuilder("pg_config", "--bindir").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            if (p.waitFor() == 0 && Files.isExecutable(Path.of(out, "initdb"))) {
                return Path.of(out);
            }
        } catch (IOException notInstalled) {
            // fall through to the message below
        }
        throw new IllegalStateException("PostgreSQL is missing: ./run-tests installs it (or set " + EXTERNAL_URL_VARIABLE
                + " to a server's jdbc:postgresql:// URL)");
    }

    private static int versionOf(String name) {
        try {
            return Integer.parseInt(name.replaceAll("\\..*", ""));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
