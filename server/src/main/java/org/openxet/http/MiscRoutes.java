package org.openxet.http;

import io.helidon.http.Method;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import org.openxet.service.Grant;
import org.openxet.service.Services;

/** {@code GET /health} and {@code POST /v1/telemetry} (§5.9: fire-and-forget, discarded). */
final class MiscRoutes {
    /** Telemetry envelopes are small JSON documents; anything larger is not telemetry. */
    static final long TELEMETRY_CAP = 1 << 20;

    private final Services services;
    private final Bodies bodies;

    MiscRoutes(Services services, Bodies bodies) {
        this.services = services;
        this.bodies = bodies;
    }

    void register(RouteTable routes) {
        routes.add(Method.GET, "/health", RouteTable.Guard.PUBLIC, this::health);
        routes.add(Method.POST, "/v1/telemetry", RouteTable.Guard.READ, this::telemetry);
    }

    private void health(ServerRequest req, ServerResponse res, Grant grant) throws Exception {
        // Answering needs the index: a query proves it is open and readable.
        services.index().hasXorb(org.openxet.protocol.MerkleHash.ZERO);
        Errors.sendJson(res, 200, "{\"status\":\"ok\"}");
    }

    private void telemetry(ServerRequest req, ServerResponse res, Grant grant) throws Exception {
        bodies.discard(req, TELEMETRY_CAP);
        Errors.sendJson(res, 200, "{}");
    }
}
