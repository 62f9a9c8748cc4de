package org.openxet.http;

import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import org.openxet.protocol.InvalidHashException;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.xorb.XorbFormat;
import org.openxet.service.Access;
import org.openxet.service.Grant;
import org.openxet.service.Services;
import org.openxet.service.XorbIngest;

import java.util.Optional;

/** {@code POST} and {@code HEAD /v1/xorbs/{prefix}/{hash}} (§5.2; older clients' paths in {@link ClientPaths}). */
final class XorbRoutes {
    private final Services services;
    private final Bodies bodies;
    /**
     * Where xorb bodies take their memory as they arrive, shared with shard bodies: clients upload up to 64 (hf_xet
     * high-performance: 124) xorbs of up to 64 MiB concurrently. An upload that cannot grow within the budget's wait
     * ({@code upload.window}, 20 s by default, as for a shard's commit permit) is answered 503: the stock client
     * retries 503 after 3 s, 9 s, 27 s… (×[0,1) jitter) and lowers its upload concurrency on each failure (§5.10, §7).
     */
    private final BodyBudget budget;
    private final ServerMetrics metrics;

    XorbRoutes(Services services, Bodies bodies, BodyBudget budget, ServerMetrics metrics) {
        this.services = services;
        this.bodies = bodies;
        this.budget = budget;
        this.metrics = metrics;
    }

    void register(RouteTable routes) {
        for (String path : ClientPaths.XORB) {
            routes.cas(Method.POST, path, Access.WRITE, this::upload);
            routes.cas(Method.HEAD, path, Access.READ, this::head);
        }
    }

    static MerkleHash hashParam(ServerRequest req, String name) throws InvalidHashException {
        return MerkleHash.parse(req.path().pathParameters().get(name));
    }

    private static void checkPrefix(ServerRequest req) throws HttpError {
        String prefix = req.path().pathParameters().get("prefix");
        if (!XorbIngest.PREFIX.equals(prefix)) {
            throw HttpError.badRequest("unknown xorb prefix '" + prefix + "' (only 'default' exists)");
        }
    }

    private void upload(ServerRequest req, ServerResponse res, Grant grant) throws Exception {
        checkPrefix(req);
        MerkleHash hash = hashParam(req, "hash");
        try (Bodies.Body body = bodies.read(req, XorbFormat.MAX_UPLOAD_BYTES, budget)) {
            XorbIngest.Result result = services.ingest().ingest(hash, body.data(), body.length());
            metrics.xorb(result.inserted(), body.length());
            JsonAnswer.send(res, 200, "{\"was_inserted\":" + result.inserted() + "}");
        }
    }

    private void head(ServerRequest req, ServerResponse res, Grant grant) throws Exception {
        checkPrefix(req);
        MerkleHash hash = hashParam(req, "hash");
        Optional<Long> size = services.index().xorb(hash).map(x -> x.storedBytes());
        // With dedup isolation a scope learns of no content it did not register itself, as for /v1/chunks.
        if (size.isPresent() && services.config().dedupIsolate() && !services.index().xorbListedIn(hash, grant.scope())) {
            size = Optional.empty();
        }
        if (size.isEmpty()) {
            res.status(404);
            res.send();
            return;
        }
        res.status(200);
        res.header(HeaderNames.CONTENT_LENGTH, Long.toString(size.get()));
        res.send();
    }
}
