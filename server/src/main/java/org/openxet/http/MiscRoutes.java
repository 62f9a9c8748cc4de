package org.openxet.http;

import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import org.openxet.service.Access;
import org.openxet.service.Grant;
import org.openxet.service.Readiness;
import org.openxet.service.Services;

import java.nio.charset.StandardCharsets;

/**
 * {@code GET /health} (the process answers and its index is open), {@code GET /ready} (send this node traffic: its
 * index and bucket answer and it is not stopping; {@link org.openxet.service.Readiness}), {@code GET /metrics} and
 * {@code POST /v1/telemetry} (§5.9: fire-and-forget, discarded).
 */
final class MiscRoutes {
    /** Telemetry envelopes are small JSON documents; anything larger is not telemetry. */
    static final long TELEMETRY_CAP = 1 << 20;

    private final Services services;
    private final Bodies bodies;
    private final ServerMetrics metrics;

    MiscRoutes(Services services, Bodies bodies, ServerMetrics metrics) {
        this.services = services;
        this.bodies = bodies;
        this.metrics = metrics;
    }

    void register(RouteTable routes) {
        routes.open(Method.GET, "/health", this::health);
        routes.open(Method.GET, "/ready", this::ready);
        routes.cas(Method.POST, "/v1/telemetry", Access.READ, this::telemetry);
        // The public halves of openxet's asymmetric token keys, so other services can verify its CAS tokens.
        routes.open(Method.GET, "/.well-known/jwks.json", this::jwks);
        if (metrics.enabled()) {
            // No token, like /health: a scraper holds none, and the meters name no file, xorb or scope.
            routes.open(Method.GET, "/metrics", this::metrics);
        }
    }

    private void metrics(ServerRequest req, ServerResponse res) {
        byte[] text = metrics.prometheusText().orElse("").getBytes(StandardCharsets.UTF_8);
        res.status(200);
        res.header(HeaderNames.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
        res.send(text);
    }

    private void jwks(ServerRequest req, ServerResponse res) {
        // A verifier re-fetches on a key id it does not know, so a minute of caching delays no rotation.
        res.header(HeaderNames.CACHE_CONTROL, "public, max-age=60");
        JsonAnswer.send(res, 200, services.keys().publicJwks());
    }

    private void health(ServerRequest req, ServerResponse res) throws Exception {
        // Answering needs the index: a query (at most one a second, Liveness) proves it is open and readable.
        services.liveness().check();
        JsonAnswer.send(res, 200, "{\"status\":\"ok\"}");
    }

    private void ready(ServerRequest req, ServerResponse res) throws Exception {
        Readiness.State state = services.readiness().check();
        if (state.ready()) {
            JsonAnswer.send(res, 200, "{\"status\":\"ready\"}");
            return;
        }
        // Answered here, not thrown: a balancer polls this every few seconds, and Readiness logs each change once.
        res.header(HeaderNames.RETRY_AFTER, "1");
        JsonAnswer.send(res, 503, Errors.json("not_ready", state.reason()));
    }

    private void telemetry(ServerRequest req, ServerResponse res, Grant grant) throws Exception {
        bodies.discard(req, TELEMETRY_CAP);
        JsonAnswer.send(res, 200, "{}");
    }
}
