package org.openxet.service;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.openxet.service.Setting.bool;
import static org.openxet.service.Setting.duration;
import static org.openxet.service.Setting.durationOrZero;
import static org.openxet.service.Setting.origins;
import static org.openxet.service.Setting.path;
import static org.openxet.service.Setting.text;
import static org.openxet.service.Setting.whole;
import static org.openxet.service.Setting.zeroMeans;

/**
 * Every setting of {@code openxet serve}, declared once, in the README's order: its key (YAML under {@code openxet:};
 * the variable is derived from it), its default, what it means as the README's table says it, and how its value is
 * read and checked. {@link ServerConfig#load} reads them, {@link ServerConfig#describe} prints them, and
 * {@code SettingsTest} fails when the README's table is not exactly {@link #readmeTable()}.
 */
public final class Settings {
    private static final int CPUS = Runtime.getRuntime().availableProcessors();

    public static final Setting<String> HOST = text("host", "0.0.0.0")
            .documented("`0.0.0.0`",
                    "interface to listen on");
    public static final Setting<Integer> PORT = whole("port", 8080, 0, 65535)
            .documented("`8080`",
                    "TCP port (`0`: any free port, printed at start-up)");
    public static final Setting<Path> DATA = path("data", "data")
            .documented("`./data`",
                    "index (`index.sqlite`), bucket (`bucket/`), keys (`secrets.properties` and `keys.json`, 0600), users (`users.json`, 0600)");
    public static final Setting<String> PUBLIC_URL = text("public.url", "")
            .documented("the request's `Host`",
                    "base URL clients reach the server at: `casUrl` and signed fetch URLs use it");
    public static final Setting<Long> UPLOAD_FLOOR = whole("upload.floor", 4096L, 0, Long.MAX_VALUE)
            .documented("`4096`",
                    "slowest accepted request body in bytes/s, averaged over the window; slower → 408 (clients retry 408)");
    public static final Setting<Duration> UPLOAD_WINDOW = duration("upload.window", Duration.ofSeconds(20))
            .documented("`20s`",
                    "the floor applies once this has passed; a body that sends nothing for this long has its connection closed");
    public static final Setting<Long> UPLOAD_MEMORY = whole("upload.memory", 0L, 0, Long.MAX_VALUE)
            .documented("half the heap",
                    "bytes that request bodies (xorbs, shards and parsed shards) may hold at once, taken as they arrive; an upload that cannot grow within it for `upload.window` → 503 with `Retry-After`; `0` = the default");
    public static final Setting<Duration> URLS_TTL = duration("urls.ttl", Duration.ofHours(1))
            .documented("`1h`",
                    "lifetime of signed fetch URLs");
    public static final Setting<Boolean> DEDUP_ISOLATE = bool("dedup.isolate", false)
            .documented("`false`",
                    "answer dedup queries only with chunks already visible to the token's scope");
    public static final Setting<Integer> COMMIT_PERMITS = zeroMeans("commit.permits", 4 * CPUS)
            .documented("4 × CPUs",
                    "concurrent shard commits (bounds memory under bursts); `0` = the default");
    public static final Setting<Integer> INDEX_READERS = whole("index.readers", Math.max(4, 2 * CPUS), 1, 1024)
            .documented("max(4, 2 × CPUs)",
                    "SQLite read connections; with `index.url`, each node's PostgreSQL pool holds this many + 1");
    public static final Setting<String> INDEX_URL = text("index.url", "")
            .documented("empty: SQLite in the data dir",
                    "the index in PostgreSQL, shared by several nodes: `jdbc:postgresql://host:5432/db?user=...&password=...` (any PgJDBC parameter; `socketTimeout` defaults to 60 s). Tables are created at the first start; see docs/DESIGN.md for what else a second node needs");
    public static final Setting<Integer> ANSWER_WRITERS = zeroMeans("answer.writers", CPUS)
            .documented("CPUs",
                    "threads rendering large reconstruction answers at once; one answer (16,384+ terms) takes at most half of those free, so 1 writes every answer on its request's thread; `0` = the default");
    public static final Setting<Boolean> METRICS = bool("metrics", true)
            .documented("`true`",
                    "answer `GET /metrics` (Prometheus text, no token, like `/health`): request latency histograms per route, method and status, xorb/shard/fetch counters, JVM meters; see below");
    public static final Setting<String> BUCKET_URL = text("bucket.url", "")
            .documented("empty: `<data>/bucket`",
                    "`s3://bucket` or `s3://bucket/prefix`: xorbs and shards in S3-compatible object storage, keys under the prefix; the bucket must exist and answer at start-up");
    public static final Setting<String> S3_ENDPOINT = text("s3.endpoint", "")
            .documented("empty: AWS",
                    "`http(s)://host[:port]` of an S3-compatible store (path-style requests); empty = AWS's endpoint for the region");
    public static final Setting<String> S3_REGION = text("s3.region", "us-east-1")
            .documented("`us-east-1`",
                    "the bucket's region (requests are signed for it, S3-compatible stores included)");
    public static final Setting<Duration> HEAD_TIMEOUT = duration("head.timeout", Duration.ofSeconds(10))
            .documented("`10s`",
                    "a connection whose request head (line and headers) is not complete this long after it opened, or after a kept-alive request line, is closed");
    public static final Setting<Duration> IDLE_TIMEOUT = duration("idle.timeout", Duration.ofSeconds(90))
            .documented("`90s`",
                    "a kept-alive connection idle this long between requests is closed");
    public static final Setting<Duration> SEND_TIMEOUT = durationOrZero("send.timeout", Duration.ofSeconds(60))
            .documented("`60s`",
                    "a connection whose client takes nothing of its answer for this long (its window stays shut, or nothing sent is acknowledged) is ended, and the request's thread and memory with it (Linux's `TCP_USER_TIMEOUT`); `0s` = the kernel's own limits, none for a client that keeps its window shut");
    public static final Setting<List<String>> CORS_ORIGINS = origins("cors.origins", List.of("*"))
            .documented("`*`",
                    "web pages that may call the server from a browser (CORS; @huggingface/hub runs in browsers): `*` for any (every route takes a bearer token or a signed URL, never a cookie), a comma-separated list of origins (`https://app.example.org`), or empty for none");
    public static final Setting<Integer> ADDRESS_CONNECTIONS = whole("address.connections", 0, 0, Integer.MAX_VALUE)
            .documented("a quarter of the connection cap",
                    "connections one client address may hold; more are closed at once. Behind a reverse proxy (one address for every client) set it to the proxy's pool size; `0` = the default");
    public static final Setting<Duration> SHUTDOWN_GRACE = duration("shutdown.grace", Duration.ofSeconds(30))
            .documented("`30s`",
                    "after SIGTERM (or SIGINT) the server stops accepting and `/ready` answers 503; requests in flight get this long to finish, then it exits 0");
    public static final Setting<Duration> WARMUP_DURATION = durationOrZero("warmup.duration", Duration.ofSeconds(2))
            .documented("`2s`",
                    "at start-up, before `/ready` answers 200, the server asks itself for reconstructions of files sampled from its own index over loopback for this long (reads only; an upload is first rehearsed in memory, nothing stored), so the first requests and uploads meet a warm JVM; `/health` answers meanwhile; `0s` = ready as soon as it listens");
    public static final Setting<Duration> WARMUP_INDEX_PRELOAD = durationOrZero("warmup.index-preload", Duration.ofSeconds(60))
            .documented("`60s`",
                    "at start-up, before `/ready` answers 200 and before the self-warm-up, a SQLite index that fits in the memory the kernel has available is read into the page cache for at most this long (a rebooted node's index is on disk: 16.9 GB took 6–9 s here; an index already cached takes milliseconds); `/health` answers meanwhile; `0s` = not read. PostgreSQL's index is the database's to cache");
    public static final Setting<Duration> AUTH_MAX_LIFETIME = duration("auth.max-lifetime", AuthConfig.DEFAULTS.maxLifetime())
            .documented("`24h`",
                    "no token is minted for longer (`openxet token --ttl`, the token routes), and none is accepted with more than this left before its `exp`, whoever minted it → 401");
    public static final Setting<Duration> AUTH_CLOCK_SKEW = AuthConfig.clockSkew("auth.clock-skew", AuthConfig.DEFAULTS.clockSkew())
            .documented("`60s`",
                    "how far past its `exp` (and before its `nbf`) a token is still accepted: nodes and issuers never agree on the time to the second (0s–1h)");
    public static final Setting<List<AuthConfig.Issuer>> AUTH_ISSUERS = AuthConfig.issuers("auth.issuers")
            .documented("none",
                    "identity providers whose CAS tokens are accepted beside openxet's own: a list, see [Tokens from your identity provider](#tokens-from-your-identity-provider)");
    public static final Setting<Long> BUCKETS_BATCH_BYTES = whole("buckets.batch.bytes", 16L << 20, 1L << 10, 64L << 20)
            .documented("`16777216`",
                    "largest body of a bucket's NDJSON batch call (`POST /api/buckets/{id}/batch`: add, copy and delete lines) and of its paths-info call, in bytes (1 KiB–64 MiB); larger → 413, nothing changed");
    public static final Setting<Integer> BUCKETS_BATCH_LINES = whole("buckets.batch.lines", 10_000, 1, 1_000_000)
            .documented("`10000`",
                    "most lines in one bucket batch call (the clients send at most 1,000 adds or copies a call, every delete of a commit in one); more → 413, nothing changed");

    /** Every setting, in the README's order. */
    public static final List<Setting<?>> ALL = List.of(HOST, PORT, DATA, PUBLIC_URL, UPLOAD_FLOOR, UPLOAD_WINDOW, UPLOAD_MEMORY, URLS_TTL, DEDUP_ISOLATE, COMMIT_PERMITS, INDEX_READERS, INDEX_URL, ANSWER_WRITERS, METRICS, BUCKET_URL, S3_ENDPOINT, S3_REGION, HEAD_TIMEOUT, IDLE_TIMEOUT, SEND_TIMEOUT, CORS_ORIGINS, ADDRESS_CONNECTIONS, SHUTDOWN_GRACE, WARMUP_DURATION, WARMUP_INDEX_PRELOAD, AUTH_MAX_LIFETIME, AUTH_CLOCK_SKEW, AUTH_ISSUERS,
            BUCKETS_BATCH_BYTES, BUCKETS_BATCH_LINES);

    private Settings() {
    }

    /** The README's configuration table, rows only. */
    public static String readmeTable() {
        StringBuilder b = new StringBuilder();
        for (Setting<?> s : ALL) b.append(s.readmeRow()).append('\n');
        return b.toString();
    }
}
