package org.openxet.http;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.openxet.service.Tokens;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The server's meters, answered at {@code GET /metrics} in Prometheus text format: a latency histogram per route,
 * method and status (so a scraper computes the p99 the operators' targets are stated in, across nodes), what the
 * store took in and handed out, and the JVM's own meters under Micrometer's usual names. One registry per server, so
 * two servers in one JVM (tests, the gates) never count each other's requests; the JVM's meters, one set per process.
 */
public final class ServerMetrics {
    /**
     * Histogram bounds from a health check to a 64 MiB xorb on a slow link; the 25/50 ms pair brackets the latency
     * targets of large reconstruction answers.
     */
    static final Duration[] BUCKETS = {
            ms(1), ms(2), ms(5), ms(10), ms(25), ms(50), ms(100), ms(250), ms(500),
            ms(1_000), ms(2_500), ms(5_000), ms(10_000), ms(30_000), ms(60_000), ms(300_000)};

    /** The route tag of requests no route matched. */
    static final String UNMATCHED = "unmatched";

    private final PrometheusMeterRegistry registry;
    private final ConcurrentHashMap<RequestKey, Timer> requests = new ConcurrentHashMap<>();
    private final Counter xorbsStored;
    private final Counter xorbsPresent;
    private final Counter xorbBytesStored;
    private final Counter shardsStored;
    private final Counter shardsPresent;
    private final Counter shardsAbandoned;
    private final Counter fetchBytes;

    private record RequestKey(String method, String route, int status) {
    }

    private ServerMetrics(PrometheusMeterRegistry registry) {
        this.registry = registry;
        String xorbs = "xorb uploads by result: stored, or already present";
        String shards = "shard uploads by result: registered, already present, or abandoned (v1: the client left"
                + " during validation)";
        xorbsStored = counter("openxet.xorbs", xorbs, "result", "stored");
        xorbsPresent = counter("openxet.xorbs", xorbs, "result", "present");
        xorbBytesStored = counter("openxet.xorb.stored.bytes", "bytes of newly stored xorbs, as uploaded");
        shardsStored = counter("openxet.shards", shards, "result", "stored");
        shardsPresent = counter("openxet.shards", shards, "result", "present");
        shardsAbandoned = counter("openxet.shards", shards, "result", "abandoned");
        fetchBytes = counter("openxet.fetch.bytes", "xorb bytes sent to signed fetch URLs (multipart framing included)");
    }

    /** Meters for one server; {@code enabled = false} counts nothing (and the server has no {@code /metrics}). */
    public static ServerMetrics create(boolean enabled) {
        if (!enabled) {
            return new ServerMetrics(null);
        }
        return new ServerMetrics(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    }

    /**
     * The JVM's meters belong to the process, not to a server: one registry of them per JVM, scraped along with each
     * server's own. Binding them per server would add a GC listener per server that nothing ever removes.
     */
    private static final class JvmMeters {
        static final PrometheusMeterRegistry REGISTRY = create();

        private static PrometheusMeterRegistry create() {
            PrometheusMeterRegistry jvm = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            new JvmMemoryMetrics().bindTo(jvm);
            new JvmGcMetrics().bindTo(jvm);
            new JvmThreadMetrics().bindTo(jvm);
            new ClassLoaderMetrics().bindTo(jvm);
            new ProcessorMetrics().bindTo(jvm);
            new UptimeMetrics().bindTo(jvm);
            return jvm;
        }
    }

    public boolean enabled() {
        return registry != null;
    }

    private Counter counter(String name, String description, String... tags) {
        if (registry == null) return null;
        return Counter.builder(name).description(description).tags(tags).register(registry);
    }

    /** Counts the bearer-token checks of {@code tokens} ({@link Tokens#checks()}), read at each scrape. */
    void tokens(Tokens tokens) {
        if (registry == null) return;
        String description = "bearer token checks by result: kept (a token verified before) or full (parsed and its"
                + " signature checked)";
        FunctionCounter.builder("openxet.token.checks", tokens, t -> t.checks().kept()).description(description)
                .tags("result", "kept").register(registry);
        FunctionCounter.builder("openxet.token.checks", tokens, t -> t.checks().full()).description(description)
                .tags("result", "full").register(registry);
    }

    /** One finished request: {@code route} is the route's path template ({@link #UNMATCHED} when none matched). */
    void request(String method, String route, int status, long nanos) {
        if (registry == null) return;
        requests.computeIfAbsent(new RequestKey(method, route, status), k -> Timer.builder("openxet.requests")
                        .description("requests by method, route template and status, to the last byte of the answer")
                        .tags("method", k.method(), "route", k.route(), "status", Integer.toString(k.status()))
                        .serviceLevelObjectives(BUCKETS)
                        .register(registry))
                .record(nanos, TimeUnit.NANOSECONDS);
    }

    void xorb(boolean stored, long bytes) {
        if (registry == null) return;
        if (stored) {
            xorbsStored.increment();
            xorbBytesStored.increment(bytes);
        } else {
            xorbsPresent.increment();
        }
    }

    void shard(boolean stored) {
        if (registry == null) return;
        (stored ? shardsStored : shardsPresent).increment();
    }

    void shardAbandoned() {
        if (registry == null) return;
        shardsAbandoned.increment();
    }

    void fetched(long bytes) {
        if (registry == null) return;
        fetchBytes.increment(bytes);
    }

    /** The Prometheus text exposition (format 0.0.4) of every meter, or empty when metrics are off. */
    Optional<String> prometheusText() {
        if (registry == null) return Optional.empty();
        String own = registry.scrape();
        return Optional.of(own + (own.isEmpty() || own.endsWith("\n") ? "" : "\n") + JvmMeters.REGISTRY.scrape());
    }

    private static Duration ms(long millis) {
        return Duration.ofMillis(millis);
    }
}
