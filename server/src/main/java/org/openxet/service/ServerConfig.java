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
 * @param urlTtl           lifetime of signed fetch URLs (long enough for an 8 GB block on a slow link)
 * @param dedupIsolated    answer dedup queries only with chunks already visible to the asking token's scope
 * @param commitPermits    concurrent shard commits (validation, storage and index registration); 0 = 4 × CPUs
 * @param readConnections  SQLite read connections
 * @param answerWriters    threads that may render large reconstruction answers at once, server-wide; one answer takes
 *                         at most half of those free (0 = CPUs; 1 = every answer on its request's thread alone)
 */
public record ServerConfig(String host, int port, Path dataDir, String publicUrl, long uploadFloor, Duration uploadWindow,
                           Duration urlTtl, boolean dedupIsolated, int commitPermits, int readConnections,
                           int answerWriters) {

    public static ServerConfig defaults(Path dataDir) {
        return new ServerConfig("0.0.0.0", 8080, dataDir, "", 4096, Duration.ofSeconds(20), Duration.ofHours(1), false,
                4 * Runtime.getRuntime().availableProcessors(), Math.max(4, 2 * Runtime.getRuntime().availableProcessors()),
                Runtime.getRuntime().availableProcessors());
    }

    /** Reads {@code openxet.*} from env and an optional YAML file over the defaults; flags are applied by the caller. */
    public static ServerConfig load(Path yamlFile) {
        // Sources added first win: the environment overrides the file.
        Config.Builder builder = Config.builder().disableSystemPropertiesSource().disableEnvironmentVariablesSource()
                .addSource(ConfigSources.environmentVariables());
        if (yamlFile != null) {
            builder.addSource(ConfigSources.file(yamlFile).build());
        }
        Config root = builder.build();
        Config c = root.get("openxet");
        ServerConfig d = defaults(Path.of("data"));
        int permits = c.get("commit.permits").asInt().orElse(0);
        int writers = c.get("answer.writers").asInt().orElse(0);
        return new ServerConfig(
                c.get("host").asString().orElse(d.host()),
                c.get("port").asInt().orElse(d.port()),
                Path.of(c.get("data").asString().orElse("data")),
                c.get("public.url").asString().orElse(""),
                c.get("upload.floor").asLong().orElse(d.uploadFloor()),
                c.get("upload.window").as(Duration.class).orElse(d.uploadWindow()),
                c.get("urls.ttl").as(Duration.class).orElse(d.urlTtl()),
                c.get("dedup.isolate").asBoolean().orElse(false),
                permits > 0 ? permits : d.commitPermits(),
                c.get("index.readers").asInt().orElse(d.readConnections()),
                writers > 0 ? writers : d.answerWriters());
    }

    public ServerConfig withPort(int p) {
        return new ServerConfig(host, p, dataDir, publicUrl, uploadFloor, uploadWindow, urlTtl, dedupIsolated, commitPermits, readConnections, answerWriters);
    }

    public ServerConfig withHost(String h) {
        return new ServerConfig(h, port, dataDir, publicUrl, uploadFloor, uploadWindow, urlTtl, dedupIsolated, commitPermits, readConnections, answerWriters);
    }

    public ServerConfig withDataDir(Path d) {
        return new ServerConfig(host, port, d, publicUrl, uploadFloor, uploadWindow, urlTtl, dedupIsolated, commitPermits, readConnections, answerWriters);
    }

    public ServerConfig withPublicUrl(String u) {
        return new ServerConfig(host, port, dataDir, u, uploadFloor, uploadWindow, urlTtl, dedupIsolated, commitPermits, readConnections, answerWriters);
    }

    public ServerConfig withUpload(long floor, Duration window) {
        return new ServerConfig(host, port, dataDir, publicUrl, floor, window, urlTtl, dedupIsolated, commitPermits, readConnections, answerWriters);
    }

    public ServerConfig withUrlTtl(Duration ttl) {
        return new ServerConfig(host, port, dataDir, publicUrl, uploadFloor, uploadWindow, ttl, dedupIsolated, commitPermits, readConnections, answerWriters);
    }

    public ServerConfig withDedupIsolated(boolean isolated) {
        return new ServerConfig(host, port, dataDir, publicUrl, uploadFloor, uploadWindow, urlTtl, isolated, commitPermits, readConnections, answerWriters);
    }

    public ServerConfig withAnswerWriters(int writers) {
        return new ServerConfig(host, port, dataDir, publicUrl, uploadFloor, uploadWindow, urlTtl, dedupIsolated, commitPermits, readConnections, writers);
    }

    public ServerConfig withCommitPermits(int permits) {
        return new ServerConfig(host, port, dataDir, publicUrl, uploadFloor, uploadWindow, urlTtl, dedupIsolated, permits, readConnections, answerWriters);
    }

    /** The effective configuration as printed at start-up (there are no secrets in it: keys live in the data dir). */
    public String describe() {
        return "host=" + host + " port=" + port + " data=" + dataDir.toAbsolutePath() + " public.url="
                + (publicUrl.isEmpty() ? "(http://<host>:<port>)" : publicUrl) + " upload.floor=" + uploadFloor + "B/s"
                + " upload.window=" + uploadWindow.toSeconds() + "s urls.ttl=" + urlTtl.toSeconds() + "s dedup.isolate="
                + dedupIsolated + " commit.permits=" + commitPermits + " index.readers=" + readConnections
                + " answer.writers=" + answerWriters;
    }
}
