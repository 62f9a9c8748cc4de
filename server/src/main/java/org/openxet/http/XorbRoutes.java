package org.openxet.http;

import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import org.openxet.protocol.InvalidHashException;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.xorb.XorbFormat;
import org.openxet.service.Grant;
import org.openxet.service.Services;
import org.openxet.service.XorbIngest;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/** {@code POST} and {@code HEAD /v1/xorbs/{prefix}/{hash}} (§5.2). */
final class XorbRoutes {
    private final Services services;
    private final Bodies bodies;
    /**
     * Bytes of xorb bodies held in memory at once, in KiB: clients upload up to 64 (hf_xet high-performance: 124)
     * xorbs of up to 64 MiB concurrently. Half the heap; later uploads wait, their bytes held back by TCP.
     */
    private final Semaphore memoryKiB;
    /**
     * Longest an upload waits for its share of {@link #memoryKiB} before it is answered 503: slow uploads can hold the
     * whole budget for minutes, and a wait without end left every other upload unanswered. The stock client retries
     * 503 after 3 s, 9 s, 27 s… (×[0,1) jitter) and lowers its upload concurrency on each failure (§5.10, §7), so a
     * refused upload comes back later with fewer companions. The wait is {@code upload.window} (20 s by default, as
     * for a shard's commit permit): a 64 MiB upload at 10 MB/s frees its share within it, and the client's own read
     * timeout (300 s) is far off.
     */
    private final Duration budgetWait;

    private final ServerMetrics metrics;

    XorbRoutes(Services services, Bodies bodies, ServerMetrics metrics) {
        this(services, bodies, metrics, Math.max(Runtime.getRuntime().maxMemory() / 2, 2 * XorbFormat.MAX_UPLOAD_BYTES),
                services.config().uploadWindow());
    }

    /** With a given memory budget and wait (tests use a small one of each). */
    XorbRoutes(Services services, Bodies bodies, ServerMetrics metrics, long budgetBytes, Duration budgetWait) {
        this.services = services;
        this.bodies = bodies;
        this.metrics = metrics;
        this.memoryKiB = new Semaphore((int) Math.min(Integer.MAX_VALUE, budgetBytes >> 10), true);
        this.budgetWait = budgetWait;
    }

    void register(RouteTable routes) {
        routes.add(Method.POST, "/v1/xorbs/{prefix}/{hash}", RouteTable.Guard.WRITE, this::upload);
        routes.add(Method.HEAD, "/v1/xorbs/{prefix}/{hash}", RouteTable.Guard.READ, this::head);
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
        long declared = req.headers().contentLength().orElse(XorbFormat.MAX_UPLOAD_BYTES);
        if (declared > XorbFormat.MAX_UPLOAD_BYTES) {
            throw new HttpError(413, "payload_too_large", "xorb body of " + declared + " bytes exceeds the limit of "
                    + XorbFormat.MAX_UPLOAD_BYTES);
        }
        int kib = (int) Math.max(1, (declared + 1023) >> 10);
        if (!memoryKiB.tryAcquire(kib, budgetWait.toMillis(), TimeUnit.MILLISECONDS)) {
            // The body stays unread: Errors closes the connection after the answer.
            throw new HttpError(503, "busy", "the server is receiving as many xorb bytes as it can hold; retry later");
        }
        try {
            Bodies.Body body = bodies.read(req, XorbFormat.MAX_UPLOAD_BYTES);
            XorbIngest.Result result = services.ingest().ingest(hash, body.data(), body.length());
            metrics.xorb(result.inserted(), body.length());
            Errors.sendJson(res, 200, "{\"was_inserted\":" + result.inserted() + "}");
        } finally {
            memoryKiB.release(kib);
        }
    }

    private void head(ServerRequest req, ServerResponse res, Grant grant) throws Exception {
        checkPrefix(req);
        MerkleHash hash = hashParam(req, "hash");
        Optional<Long> size = services.index().xorb(hash).map(x -> x.storedBytes());
        // With dedup isolation a scope learns of no content it did not register itself, as for /v1/chunks.
        if (size.isPresent() && services.config().dedupIsolated() && !services.index().xorbListedIn(hash, grant.scope())) {
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
