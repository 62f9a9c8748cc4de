package org.openxet.service;

import io.helidon.config.Config;
import io.helidon.config.ConfigSources;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The settings of {@code openxet serve}: a value for each of {@link Settings#ALL}, where each is declared once (key,
 * default, meaning, check). Sources, strongest first: command line flags, environment ({@code OPENXET_PORT} →
 * {@code openxet.port}, Helidon's mapping), the YAML file given with {@code --config}, the declared defaults. The
 * accessors below name what the rest of the server reads; the settings that go together come as one record
 * ({@link #storage()}, {@link #connections()}, {@link #auth()}).
 */
public final class ServerConfig {
    private final Map<Setting<?>, Object> values;

    private ServerConfig(Map<Setting<?>, Object> values) {
        this.values = Map.copyOf(values);
        storage(); // its four settings are checked together
    }

    /** The declared defaults, with {@code dataDir}: no file and no environment (tests, tools). */
    public static ServerConfig defaults(Path dataDir) {
        return read(Config.empty()).with(Settings.DATA, dataDir);
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
        return read(builder.build().get("openxet"));
    }

    private static ServerConfig read(Config openxet) {
        Map<Setting<?>, Object> m = new LinkedHashMap<>();
        for (Setting<?> s : Settings.ALL) m.put(s, s.read(openxet));
        return new ServerConfig(m);
    }

    /** The value of {@code setting}. */
    @SuppressWarnings("unchecked")
    public <T> T get(Setting<T> setting) {
        return (T) values.get(setting);
    }

    /** This configuration with {@code setting} set to {@code value}. */
    public <T> ServerConfig with(Setting<T> setting, T value) {
        Map<Setting<?>, Object> m = new HashMap<>(values);
        m.put(setting, Objects.requireNonNull(value, setting.key()));
        return new ServerConfig(m);
    }

    public String host() {
        return get(Settings.HOST);
    }

    public int port() {
        return get(Settings.PORT);
    }

    /** Where the SQLite index, the bucket and the keys live. */
    public Path dataDir() {
        return get(Settings.DATA);
    }

    /** Base URL clients reach this server at; signed fetch URLs and {@code casUrl} use it (empty: the Host). */
    public String publicUrl() {
        return get(Settings.PUBLIC_URL);
    }

    public long uploadFloor() {
        return get(Settings.UPLOAD_FLOOR);
    }

    public Duration uploadWindow() {
        return get(Settings.UPLOAD_WINDOW);
    }

    /** Heap bytes request bodies may pin at once; 0 = half the heap. */
    public long uploadMemory() {
        return get(Settings.UPLOAD_MEMORY);
    }

    /** How long the server warms itself up before it reports ready; zero: ready as soon as it listens. */
    /** Web origins whose browser pages may call the server ({@code cors.origins}): {@code *}, a list, or none. */
    public List<String> corsOrigins() {
        return get(Settings.CORS_ORIGINS);
    }

    public ServerConfig withCorsOrigins(List<String> origins) {
        return with(Settings.CORS_ORIGINS, origins);
    }

    /** How long a client may take none of its answer before its connection ends ({@code send.timeout}); 0 = off. */
    public Duration sendTimeout() {
        return get(Settings.SEND_TIMEOUT);
    }

    public Duration warmupDuration() {
        return get(Settings.WARMUP_DURATION);
    }

    /** How long the server may spend reading a SQLite index into the page cache before it reports ready; zero: not at all. */
    public Duration indexPreload() {
        return get(Settings.WARMUP_INDEX_PRELOAD);
    }

    public Duration urlsTtl() {
        return get(Settings.URLS_TTL);
    }

    public boolean dedupIsolate() {
        return get(Settings.DEDUP_ISOLATE);
    }

    public int commitPermits() {
        return get(Settings.COMMIT_PERMITS);
    }

    /** SQLite read connections; with an index URL, the PostgreSQL pool holds this many + 1 ({@code index.readers}). */
    public int indexReaders() {
        return get(Settings.INDEX_READERS);
    }

    public int answerWriters() {
        return get(Settings.ANSWER_WRITERS);
    }

    public boolean metrics() {
        return get(Settings.METRICS);
    }

    /** The bounds of one bucket batch call: its body's bytes and its lines. */
    public BucketLimits bucketLimits() {
        return new BucketLimits(get(Settings.BUCKETS_BATCH_BYTES), get(Settings.BUCKETS_BATCH_LINES));
    }

    /** Where the index and the blobs live when not in the data dir (several nodes). */
    public Storage storage() {
        return new Storage(get(Settings.INDEX_URL), get(Settings.BUCKET_URL), get(Settings.S3_ENDPOINT),
                get(Settings.S3_REGION));
    }

    public Connections connections() {
        return new Connections(get(Settings.HEAD_TIMEOUT), get(Settings.IDLE_TIMEOUT), get(Settings.ADDRESS_CONNECTIONS),
                get(Settings.SHUTDOWN_GRACE));
    }

    /** Token lifetimes and the external issuers whose tokens are accepted. */
    public AuthConfig auth() {
        return new AuthConfig(get(Settings.AUTH_MAX_LIFETIME), get(Settings.AUTH_CLOCK_SKEW), get(Settings.AUTH_ISSUERS));
    }

    /** The largest body of a bucket batch or paths-info call, and the most lines of a batch. */
    public record BucketLimits(long bodyBytes, int lines) {
    }

    /**
     * The connection defences (docs/DESIGN.md, "Limits and defences").
     *
     * @param headTimeout        ({@code head.timeout}) longest a connection may take from its opening (or, kept alive,
     *                           from its next request line) to the end of its request head; then it is closed
     * @param idleTimeout        ({@code idle.timeout}) longest a kept-alive connection may wait for its next request
     * @param addressConnections ({@code address.connections}) connections one client address may hold at once; 0 = a
     *                           quarter of the server's connection cap
     * @param shutdownGrace      ({@code shutdown.grace}) after a SIGTERM, how long requests in flight may take to finish
     *                           before the server exits
     */
    public record Connections(Duration headTimeout, Duration idleTimeout, int addressConnections, Duration shutdownGrace) {
        public static final Connections DEFAULTS = new Connections(Settings.HEAD_TIMEOUT.fallback(),
                Settings.IDLE_TIMEOUT.fallback(), Settings.ADDRESS_CONNECTIONS.fallback(), Settings.SHUTDOWN_GRACE.fallback());

        public Connections(Duration headTimeout, Duration idleTimeout, int addressConnections) {
            this(headTimeout, idleTimeout, addressConnections, DEFAULTS.shutdownGrace());
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
        public static final Storage EMBEDDED = new Storage("", "", "", Settings.S3_REGION.fallback());

        public Storage {
            if (!indexUrl.isEmpty() && !indexUrl.startsWith("jdbc:postgresql://")) {
                // Named without its query or user:password@: a mistyped URL still carries its password.
                throw new BadValue("index.url", indexUrlForLogs(indexUrl),
                        "must start with jdbc:postgresql:// (or be empty for SQLite in the data dir)");
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
            return "index.url=" + (indexUrl.isEmpty() ? "(sqlite in data dir)" : indexUrlForLogs(indexUrl))
                    + " bucket.url=" + (bucketUrl.isEmpty() ? "(local in data dir)" : bucketUrl)
                    + (s3Endpoint.isEmpty() ? "" : " s3.endpoint=" + s3Endpoint) + (bucketUrl.isEmpty() ? "" : " s3.region=" + s3Region);
        }

        /** A JDBC URL as logs and messages show it: its query, which may carry a password, cut to {@code ?…}. */
        public static String indexUrlForLogs(String jdbcUrl) {
            return org.openxet.storage.PostgresIndex.urlForLogs(jdbcUrl) + (jdbcUrl.indexOf('?') < 0 ? "" : "?…");
        }
    }

    /** A configuration value that cannot be used; the message names the key, its variable and what is wrong. */
    public static final class BadValue extends IllegalArgumentException {
        public BadValue(String key, String value, String problem) {
            super("openxet." + key + " (" + Setting.envName(key) + ") = '" + value + "': " + problem);
        }
    }

    /** A duration as the configuration writes it: {@code 1500ms}, {@code 90s}, {@code 20m}, {@code 1h} or {@code 7d}. */
    public static String describe(Duration d) {
        if (d.isZero()) return "0s";
        if (d.toMillisPart() != 0 || d.toSeconds() == 0) return d.toMillis() + "ms";
        long s = d.toSeconds();
        if (s % 86_400 == 0 && s > 86_400) return s / 86_400 + "d";
        if (s % 3_600 == 0) return s / 3_600 + "h";
        if (s % 60 == 0) return s / 60 + "m";
        return s + "s";
    }

    /** {@code 1500ms}, {@code 90s}, {@code 20m}, {@code 1h}, {@code 7d} (as {@code openxet token --ttl} takes them) or ISO-8601. */
    public static Duration parseDuration(String text) {
        String v = text.trim();
        if (v.regionMatches(true, 0, "P", 0, 1)) {
            return Duration.parse(v);
        }
        if (v.length() > 2 && v.regionMatches(true, v.length() - 2, "ms", 0, 2)) {
            return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
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
        return with(Settings.PORT, p);
    }

    public ServerConfig withHost(String h) {
        return with(Settings.HOST, h);
    }

    public ServerConfig withDataDir(Path d) {
        return with(Settings.DATA, d);
    }

    public ServerConfig withPublicUrl(String u) {
        return with(Settings.PUBLIC_URL, u);
    }

    public ServerConfig withUpload(long floor, Duration window) {
        return with(Settings.UPLOAD_FLOOR, floor).with(Settings.UPLOAD_WINDOW, window);
    }

    public ServerConfig withUrlsTtl(Duration ttl) {
        return with(Settings.URLS_TTL, ttl);
    }

    public ServerConfig withDedupIsolate(boolean isolated) {
        return with(Settings.DEDUP_ISOLATE, isolated);
    }

    public ServerConfig withAnswerWriters(int writers) {
        return with(Settings.ANSWER_WRITERS, writers);
    }

    public ServerConfig withMetrics(boolean on) {
        return with(Settings.METRICS, on);
    }

    public ServerConfig withCommitPermits(int permits) {
        return with(Settings.COMMIT_PERMITS, permits);
    }

    public ServerConfig withStorage(Storage s) {
        return with(Settings.INDEX_URL, s.indexUrl()).with(Settings.BUCKET_URL, s.bucketUrl())
                .with(Settings.S3_ENDPOINT, s.s3Endpoint()).with(Settings.S3_REGION, s.s3Region());
    }

    public ServerConfig withSendTimeout(Duration timeout) {
        return with(Settings.SEND_TIMEOUT, timeout);
    }

    public ServerConfig withConnections(Connections c) {
        return with(Settings.HEAD_TIMEOUT, c.headTimeout()).with(Settings.IDLE_TIMEOUT, c.idleTimeout())
                .with(Settings.ADDRESS_CONNECTIONS, c.addressConnections()).with(Settings.SHUTDOWN_GRACE, c.shutdownGrace());
    }

    public ServerConfig withAuth(AuthConfig a) {
        return with(Settings.AUTH_MAX_LIFETIME, a.maxLifetime()).with(Settings.AUTH_CLOCK_SKEW, a.clockSkew())
                .with(Settings.AUTH_ISSUERS, a.issuers());
    }

    /**
     * The effective configuration as printed at start-up, every setting as {@code key=value}: no secrets (keys live in
     * the data dir, and the index URL's query, which may carry a password, is left out).
     */
    public String describe() {
        StringBuilder b = new StringBuilder();
        for (Setting<?> s : Settings.ALL) {
            if (!b.isEmpty()) b.append(' ');
            b.append(s.key()).append('=').append(shown(s, values.get(s)));
        }
        return b.toString();
    }

    private static String shown(Setting<?> s, Object value) {
        if (s == Settings.INDEX_URL) {
            String url = (String) value;
            return url.isEmpty() ? "(sqlite in data dir)" : Storage.indexUrlForLogs(url);
        }
        if (s == Settings.AUTH_ISSUERS) {
            return ((List<?>) value).stream().map(i -> ((AuthConfig.Issuer) i).issuer()).toList().toString();
        }
        if (s == Settings.DATA) return ((Path) value).toAbsolutePath().toString();
        if (value instanceof Duration d) return describe(d);
        // A 0 or empty default the README describes in words (half the heap, empty: AWS) says so instead.
        boolean blank = value.equals(0) || value.equals(0L) || "".equals(value);
        if (blank && value.equals(s.fallback()) && !s.defaultText().startsWith("`")) return "(" + s.defaultText().replace("`", "") + ")";
        return String.valueOf(value);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ServerConfig other && values.equals(other.values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    @Override
    public String toString() {
        return describe();
    }
}
