package org.openxet.service;

import io.helidon.config.Config;
import io.helidon.config.ConfigSources;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Every knob of {@code openxet serve}, with its default and meaning side by side. Sources, strongest first: command
 * line flags, environment ({@code OPENXET_PORT} → {@code openxet.port}, Helidon's mapping), the YAML file given with
 * {@code --config}, these defaults.
 *
 * @param host             interface to listen on
 * @param port             TCP port (0 = any free port)
 * @param dataDir          where the SQLite index, the bucket and the keys live
 * @param publicUrl        base URL clients reach this server at; signed fetch URLs and {@code casUrl} use it
 * @param uploadFloor      slowest accepted request body, bytes/s averaged over {@code uploadWindow}; below → 408
 * @param uploadWindow     the averaging window of the floor, and the longest a body read may stall
 * @param uploadMemory     heap bytes request bodies may pin at once (xorbs, shards, parsed shards); 0 = half the heap
 * @param urlTtl           lifetime of signed fetch URLs (long enough for an 8 GB block on a slow link)
 * @param dedupIsolated    answer dedup queries only with chunks already visible to the asking token's scope
 * @param commitPermits    concurrent shard commits (validation, storage and index registration); 0 = 4 × CPUs
 * @param readConnections  SQLite read connections; with an index URL, the PostgreSQL pool holds this many + 1
 * @param answerWriters    threads that may render large reconstruction answers at once, server-wide; one answer takes
 *                         at most half of those free (0 = CPUs; 1 = every answer on its request's thread alone)
 * @param metrics          answer {@code GET /metrics} (Prometheus text, no token) and keep the meters it reports
 * @param storage          where the index and the blobs live when not in the data dir (several nodes)
 * @param connections      how long a connection may take over its request head or sit idle, and how many one client
 *                         address may hold
 * @param auth             token lifetimes and the external issuers whose tokens are accepted
 */
public record ServerConfig(String host, int port, Path dataDir, String publicUrl, long uploadFloor, Duration uploadWindow,
                           long uploadMemory, Duration urlTtl, boolean dedupIsolated, int commitPermits, int readConnections,
                           int answerWriters, boolean metrics, Storage storage, Connections connections, AuthConfig auth) {

    /**
     * The connection defences (docs/DESIGN.md, "Limits and defences").
     *
     * @param headerTimeout longest a connection may take from its opening (or, kept alive, from its next request line)
     *                      to the end of its request head; then it is closed
     * @param idleTimeout   longest a kept-alive connection may wait for its next request
     * @param perAddress    connections one client address may hold at once; 0 = a quarter of the server's connection cap
     * @param shutdownGrace after a SIGTERM, how long requests in flight may take to finish before the server exits
     */
    public record Connections(Duration headerTimeout, Duration idleTimeout, int perAddress, Duration shutdownGrace) {
        public static final Connections DEFAULTS = new Connections(Duration.ofSeconds(10), Duration.ofSeconds(90), 0,
                Duration.ofSeconds(30));

        public Connections(Duration headerTimeout, Duration idleTimeout, int perAddress) {
            this(headerTimeout, idleTimeout, perAddress, DEFAULTS.shutdownGrace());
        }
    }

    /**
     * Shared storage for several nodes. Both empty (the default): SQLite and a local bucket in the data dir.
     *
     * @param indexUrl   {@code jdbc:postgresql://host:port/db?...}: the index in PostgreSQL
     * @param bucketUrl  {@code s3://bucket} or {@code s3://bucket/prefix}: blobs in S3-compatible object storage
     * @param s3Endpoint the S3 API endpoint ({@code http(s)://host:port}); empty = the AWS endpoint of the region
     * @param s3Region   the S3 region
     */
    public record Storage(String indexUrl, String bucketUrl, String s3Endpoint, String s3Region) {
        public static final Storage EMBEDDED = new Storage("", "", "", "us-east-1");

        public Storage {
            if (!indexUrl.isEmpty() && !indexUrl.startsWith("jdbc:postgresql://")) {
                throw new BadValue("index.url", indexUrl, "must start with jdbc:postgresql:// (or be empty for SQLite in the data dir)");
            }
            if (!bucketUrl.isEmpty() && !bucketUrl.matches("s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/[^/].*)?")) {
                throw new BadValue("bucket.url", bucketUrl, "must be s3://bucket or s3://bucket/prefix (or empty for the local bucket in the data dir)");
            }
            if (!s3Endpoint.isEmpty() && !s3Endpoint.matches("https?://[^/\\s]+/?")) {
                throw new BadValue("s3.endpoint", s3Endpoint, "must be http(s)://host[:port]");
            }
            if (s3Region.isBlank()) {
                throw new BadValue("s3.region", s3Region, "must not be empty");
            }
        }

        /** For logs: the index URL without its query (which may carry a password). */
        public String describe() {
            int q = indexUrl.indexOf('?');
            return "index.url=" + (indexUrl.isEmpty() ? "(sqlite in data dir)" : q < 0 ? indexUrl : indexUrl.substring(0, q) + "?…")
                    + " bucket.url=" + (bucketUrl.isEmpty() ? "(local in data dir)" : bucketUrl)
                    + (s3Endpoint.isEmpty() ? "" : " s3.endpoint=" + s3Endpoint) + (bucketUrl.isEmpty() ? "" : " s3.region=" + s3Region);
        }
    }

    public static ServerConfig defaults(Path dataDir) {
        return new ServerConfig("0.0.0.0", 8080, dataDir, "", 4096, Duration.ofSeconds(20), 0, Duration.ofHours(1), false,
                4 * Runtime.getRuntime().availableProcessors(), Math.max(4, 2 * Runtime.getRuntime().availableProcessors()),
                Runtime.getRuntime().availableProcessors(), true, Storage.EMBEDDED, Connections.DEFAULTS, AuthConfig.DEFAULTS);
    }

    /** A configuration value that cannot be used; the message names the key, its variable and what is wrong. */
    public static final class BadValue extends IllegalArgumentException {
        public BadValue(String key, String value, String problem) {
            super("openxet." + key + " (" + envName(key) + ") = '" + value + "': " + problem);
        }
    }

    static String envName(String key) {
        return "OPENXET_" + key.toUpperCase(java.util.Locale.ROOT).replace('.', '_');
    }

    /**
     * Reads {@code openxet.*} from env and an optional YAML file over the defaults; flags are applied by the caller.
     * A value that cannot be used is refused with {@link BadValue}, never replaced by a default behind the operator's
     * back; a missing or unreadable file is refused too.
     */
    public static ServerConfig load(Path yamlFile) {
        // Sources added first win: the environment overrides the file.
        Config.Builder builder = Config.builder().disableSystemPropertiesSource().disableEnvironmentVariablesSource()
                .addSource(ConfigSources.environmentVariables());
        if (yamlFile != null) {
            if (!java.nio.file.Files.isReadable(yamlFile)) {
                throw new IllegalArgumentException("configuration file " + yamlFile + " does not exist or is not readable");
            }
            builder.addSource(ConfigSources.file(yamlFile).build());
        }
        Config c = builder.build().get("openxet");
        ServerConfig d = defaults(Path.of("data"));
        int permits = integer(c, "commit.permits", 0, 0, Integer.MAX_VALUE);
        int writers = integer(c, "answer.writers", 0, 0, Integer.MAX_VALUE);
        return new ServerConfig(
                c.get("host").asString().orElse(d.host()),
                integer(c, "port", d.port(), 0, 65535),
                Path.of(c.get("data").asString().orElse("data")),
                c.get("public.url").asString().orElse(""),
                integer(c, "upload.floor", d.uploadFloor(), 0, Long.MAX_VALUE),
                duration(c, "upload.window", d.uploadWindow()),
                integer(c, "upload.memory", 0, 0, Long.MAX_VALUE),
                duration(c, "urls.ttl", d.urlTtl()),
                bool(c, "dedup.isolate", false),
                permits > 0 ? permits : d.commitPermits(),
                integer(c, "index.readers", d.readConnections(), 1, 1024),
                writers > 0 ? writers : d.answerWriters(),
                bool(c, "metrics", d.metrics()),
                new Storage(string(c, "index.url"), string(c, "bucket.url"), string(c, "s3.endpoint"),
                        c.get("s3.region").asString().map(String::trim).orElse(Storage.EMBEDDED.s3Region())),
                new Connections(duration(c, "head.timeout", Connections.DEFAULTS.headerTimeout()),
                        duration(c, "idle.timeout", Connections.DEFAULTS.idleTimeout()),
                        integer(c, "address.connections", 0, 0, Integer.MAX_VALUE),
                        duration(c, "shutdown.grace", Connections.DEFAULTS.shutdownGrace())),
                AuthConfig.load(c.get("auth")));
    }

    static String string(Config c, String key) {
        return c.get(key).asString().map(String::trim).orElse("");
    }

    private static int integer(Config c, String key, int fallback, int min, int max) {
        return (int) integer(c, key, (long) fallback, min, max);
    }

    private static long integer(Config c, String key, long fallback, long min, long max) {
        var raw = c.get(key).asString();
        if (raw.isEmpty()) return fallback;
        String v = raw.get().trim();
        long n;
        try {
            n = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new BadValue(key, v, "not a whole number");
        }
        if (n < min || n > max) {
            throw new BadValue(key, v, "must be between " + min + " and " + max);
        }
        return n;
    }

    private static boolean bool(Config c, String key, boolean fallback) {
        var raw = c.get(key).asString();
        if (raw.isEmpty()) return fallback;
        String v = raw.get().trim();
        if (v.equalsIgnoreCase("true")) return true;
        if (v.equalsIgnoreCase("false")) return false;
        throw new BadValue(key, v, "must be true or false");
    }

    static Duration duration(Config c, String key, Duration fallback) {
        var raw = c.get(key).asString();
        if (raw.isEmpty()) return fallback;
        String v = raw.get().trim();
        Duration parsed;
        try {
            parsed = parseDuration(v);
        } catch (IllegalArgumentException | java.time.format.DateTimeParseException e) {
            throw new BadValue(key, v, "not a duration (e.g. 90s, 20m, 1h, 7d, or ISO-8601 PT1H)");
        }
        if (parsed.isNegative() || parsed.isZero()) {
            throw new BadValue(key, v, "must be longer than zero");
        }
        return parsed;
    }

    /** A duration as the configuration writes it: {@code 90s}, {@code 20m}, {@code 1h} or {@code 7d}. */
    public static String describe(Duration d) {
        long s = d.toSeconds();
        if (s % 86_400 == 0 && s > 86_400) return s / 86_400 + "d";
        if (s % 3_600 == 0) return s / 3_600 + "h";
        if (s % 60 == 0) return s / 60 + "m";
        return s + "s";
    }

    /** {@code 90s}, {@code 20m}, {@code 1h}, {@code 7d} (as {@code openxet token --ttl} takes them) or ISO-8601. */
    public static Duration parseDuration(String text) {
        String v = text.trim();
        if (v.regionMatches(true, 0, "P", 0, 1)) {
            return Duration.parse(v);
        }
        if (v.length() < 2) throw new IllegalArgumentException(text);
        long n = Long.parseLong(v.substring(0, v.length() - 1));
        return switch (Character.toLowerCase(v.charAt(v.length() - 1))) {
            case 's' -> Duration.ofSeconds(n);
            case 'm' -> Duration.ofMinutes(n);
            case 'h' -> Duration.ofHours(n);
            case 'd' -> Duration.ofDays(n);
            default -> throw new IllegalArgumentException(text);
        };
    }

    public ServerConfig withPort(int p) {
        return new ServerConfig(host, p, dataDir, publicUrl, uploadFloor, uploadWindow, uploadMemory, urlTtl, dedupIsolated, commitPermits, readConnections, answerWriters, metrics, storage, connections, auth);
    }

    public ServerConfig withHost(String h) {
        return new ServerConfig(h, port, dataDir, publicUrl, uploadFloor, uploadWindow, uploadMemory, urlTtl, dedupIsolated, commitPermits, readConnections, answerWriters, metrics, storage, connections, auth);
    }

    public ServerConfig withDataDir(Path d) {
        return new ServerConfig(host, port, d, publicUrl, uploadFloor, uploadWindow, uploadMemory, urlTtl, dedupIsolated, commitPermits, readConnections, answerWriters, metrics, storage, connections, auth);
    }

    public ServerConfig withPublicUrl(String u) {
        return new ServerConfig(host, port, dataDir, u, uploadFloor, uploadWindow, uploadMemory, urlTtl, dedupIsolated, commitPermits, readConnections, answerWriters, metrics, storage, connections, auth);
    }

    public ServerConfig withUpload(long floor, Duration window) {
        return new ServerConfig(host, port, dataDir, publicUrl, floor, window, uploadMemory, urlTtl, dedupIsolated, commitPermits, readConnections, answerWriters, metrics, storage, connections, auth);
    }

    public ServerConfig withUrlTtl(Duration ttl) {
        return new ServerConfig(host, port, dataDir, publicUrl, uploadFloor, uploadWindow, uploadMemory, ttl, dedupIsolated, commitPermits, readConnections, answerWriters, metrics, storage, connections, auth);
    }

    public ServerConfig withDedupIsolated(boolean isolated) {
        return new ServerConfig(host, port, dataDir, publicUrl, uploadFloor, uploadWindow, uploadMemory, urlTtl, isolated, commitPermits, readConnections, answerWriters, metrics, storage, connections, auth);
    }

    public ServerConfig withAnswerWriters(int writers) {
        return new ServerConfig(host, port, dataDir, publicUrl, uploadFloor, uploadWindow, uploadMemory, urlTtl, dedupIsolated, commitPermits, readConnections, writers, metrics, storage, connections, auth);
    }

    public ServerConfig withMetrics(boolean on) {
        return new ServerConfig(host, port, dataDir, publicUrl, uploadFloor, uploadWindow, uploadMemory, urlTtl, dedupIsolated, commitPermits, readConnections, answerWriters, on, storage, connections, auth);
    }

    public ServerConfig withStorage(Storage s) {
        return new ServerConfig(host, port, dataDir, publicUrl, uploadFloor, uploadWindow, uploadMemory, urlTtl, dedupIsolated, commitPermits, readConnections, answerWriters, metrics, s, connections, auth);
    }

    public ServerConfig withConnections(Connections c) {
        return new ServerConfig(host, port, dataDir, publicUrl, uploadFloor, uploadWindow, uploadMemory, urlTtl, dedupIsolated, commitPermits, readConnections, answerWriters, metrics, storage, c, auth);
    }

    public ServerConfig withAuth(AuthConfig a) {
        return new ServerConfig(host, port, dataDir, publicUrl, uploadFloor, uploadWindow, uploadMemory, urlTtl, dedupIsolated, commitPermits, readConnections, answerWriters, metrics, storage, connections, a);
    }

    public ServerConfig withCommitPermits(int permits) {
        return new ServerConfig(host, port, dataDir, publicUrl, uploadFloor, uploadWindow, uploadMemory, urlTtl, dedupIsolated, permits, readConnections, answerWriters, metrics, storage, connections, auth);
    }

    /** The effective configuration as printed at start-up (no secrets: keys live in the data dir, and the index URL's query is left out). */
    public String describe() {
        return "host=" + host + " port=" + port + " data=" + dataDir.toAbsolutePath() + " public.url="
                + (publicUrl.isEmpty() ? "(http://<host>:<port>)" : publicUrl) + " upload.floor=" + uploadFloor + "B/s"
                + " upload.window=" + uploadWindow.toSeconds() + "s upload.memory="
                + (uploadMemory == 0 ? "(half the heap)" : uploadMemory + "B") + " urls.ttl=" + urlTtl.toSeconds() + "s dedup.isolate="
                + dedupIsolated + " commit.permits=" + commitPermits + " index.readers=" + readConnections
                + " answer.writers=" + answerWriters + " metrics=" + metrics + " head.timeout="
                + connections.headerTimeout().toSeconds() + "s idle.timeout=" + connections.idleTimeout().toSeconds()
                + "s address.connections=" + (connections.perAddress() == 0 ? "(a quarter of the cap)" : connections.perAddress())
                + " shutdown.grace=" + connections.shutdownGrace().toSeconds() + "s " + storage.describe() + " "
                + auth.describe();
    }
}
