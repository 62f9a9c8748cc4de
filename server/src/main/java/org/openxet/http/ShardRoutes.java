package org.openxet.http;

import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Method;
import io.helidon.webserver.ServerConnectionException;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import org.openxet.protocol.FormatException;
import org.openxet.protocol.shard.Shard;
import org.openxet.protocol.shard.ShardParser;
import org.openxet.service.Access;
import org.openxet.service.Grant;
import org.openxet.service.Services;
import org.openxet.service.ShardRegistration;
import org.openxet.storage.MissingXorbsException;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@code POST /v1/shards} (JSON result; older clients' paths in {@link ClientPaths}) and {@code POST /v2/shards}
 * (NDJSON progress stream), §5.3.
 */
final class ShardRoutes {
    private static final Logger LOG = Logger.getLogger(ShardRoutes.class.getName());
    /** §5.3: the v2 reader times out after 300 s without a frame; production re-emits about every 20 s. */
    static final long HEARTBEAT_SECONDS = 20;

    /**
     * Heap a parsed shard and its stored form take per body byte, taken from the upload budget before parsing: its
     * files, terms and xorb entries as objects, then the stored serialization (ShardWriter) beside them.
     */
    static final int PARSED_BYTES_PER_BODY_BYTE = 3;

    private final Services services;
    private final Bodies bodies;
    private final BodyBudget budget;
    private final ScheduledExecutorService heartbeats = Timers.daemon("shard-v2-heartbeat");

    private final ServerMetrics metrics;

    ShardRoutes(Services services, Bodies bodies, BodyBudget budget, ServerMetrics metrics) {
        this.services = services;
        this.bodies = bodies;
        this.budget = budget;
        this.metrics = metrics;
    }

    void register(RouteTable routes) {
        for (String path : ClientPaths.SHARD_UPLOAD) routes.cas(Method.POST, path, Access.WRITE, this::uploadV1);
        routes.cas(Method.PUT, ClientPaths.SHARD_UPLOAD_PUT, Access.WRITE, this::uploadV1);
        routes.cas(Method.POST, "/v2/shards", Access.WRITE, this::uploadV2);
    }

    /**
     * A shard body received whole and parsed, under the upload budget, before any commit permit is taken: a permit is
     * held only for validation, storage and registration, so slow senders hold memory they sent, never a permit.
     */
    private record Received(Bodies.Body body, Shard shard) implements AutoCloseable {
        @Override
        public void close() {
            body.close();
        }
    }

    private Received receive(ServerRequest req) throws HttpError, FormatException {
        Bodies.Body body = bodies.read(req, ShardRegistration.MAX_SHARD_BYTES, budget);
        try {
            ShardParser.checkHeader(body.data(), 0, body.length());
            body.lease().growTo((long) body.data().length + (long) PARSED_BYTES_PER_BODY_BYTE * body.length());
            return new Received(body, ShardParser.parse(body.data(), 0, body.length()));
        } catch (HttpError | FormatException | RuntimeException e) {
            body.close();
            throw e;
        }
    }

    private void uploadV1(ServerRequest req, ServerResponse res, Grant grant) throws Exception {
        boolean inserted;
        ClientDeparture client = ClientDeparture.of(req);
        try (Received in = receive(req)) {
            inserted = services.shards().withPermit(services.config().uploadWindow(), () -> services.shards()
                    .register(in.shard(), in.body().data(), in.body().length(), grant.scope(), stopsWhenGone(client)));
        } catch (ClientLeft left) {
            metrics.shardAbandoned();
            throw new ServerConnectionException("the client left", left); // Errors: one INFO line, no answer
        }
        metrics.shard(inserted);
        if (client.mustClose()) {
            res.header(HeaderValues.CONNECTION_CLOSE);
        }
        JsonAnswer.send(res, 200, "{\"result\":" + (inserted ? 1 : 0) + "}");
        if (client.mustClose()) {
            // Helidon keeps a connection whatever its header says.
            Lingering.close(req, "a byte of the next request was read while checking for the client");
        }
    }

    /** Thrown by a v1 registration's listener when its client has gone: nothing is stored yet, so nothing is lost. */
    private static final class ClientLeft extends RuntimeException {
        ClientLeft(long done, long total) {
            super("its validation stopped after " + done + " of " + total + " files");
        }
    }

    /**
     * A v1 registration's listener: validation stops at the first check that finds its client gone (every file, and
     * every 65,536 chunks within one). Never once committing has begun: a commit under way is finished, as a v2 one is.
     */
    private static ShardRegistration.Listener stopsWhenGone(ClientDeparture client) {
        return new ShardRegistration.Listener() {
            private long done;
            private long total;

            @Override
            public void verified(long done, long total) {
                this.done = done;
                this.total = total;
                working();
            }

            @Override
            public void working() {
                if (client.gone()) throw new ClientLeft(done, total);
            }

            @Override
            public void committing(String stage) {
            }
        };
    }

    /**
     * v2: the body is read and parsed before the 200 goes out, so a garbage shard still gets a plain 400; validation
     * failures after that arrive as an {@code error} frame (retryable false), server faults as retryable ones.
     */
    private void uploadV2(ServerRequest req, ServerResponse res, Grant grant) throws Exception {
        try (Received in = receive(req)) {
            services.shards().withPermit(services.config().uploadWindow(), () -> {
                res.status(200);
                res.header(HeaderNames.CONTENT_TYPE, "application/x-ndjson");
                try (OutputStream out = res.outputStream()) {
                    Frames frames = new Frames(out);
                    ScheduledFuture<?> beat = heartbeats.scheduleAtFixedRate(frames::beat, HEARTBEAT_SECONDS,
                            HEARTBEAT_SECONDS, TimeUnit.SECONDS);
                    try {
                        metrics.shard(services.shards().register(in.shard(), in.body().data(), in.body().length(),
                                grant.scope(), frames));
                        frames.send("{\"type\":\"result\"}");
                        if (frames.clientGone()) {
                            LOG.info("POST /v2/shards: registered; its client left before the result");
                        }
                    } catch (ClientLeft left) {
                        metrics.shardAbandoned();
                        LOG.info("POST /v2/shards: the client left, " + left.getMessage() + "; nothing stored");
                    } catch (FormatException | MissingXorbsException e) {
                        LOG.info("POST /v2/shards -> error frame: " + e.getMessage());
                        frames.send("{\"type\":\"error\",\"message\":" + JsonAnswer.quote(e.getMessage()) + ",\"retryable\":false}");
                    } catch (Exception | Error e) {
                        // Errors too (an OutOfMemoryError from one huge shard): the 200 is already out, and a stream
                        // that ends without a terminal frame is fatal to the client, where this frame is retried.
                        LOG.log(Level.WARNING, "POST /v2/shards failed", e);
                        frames.send("{\"type\":\"error\",\"message\":\"internal error\",\"retryable\":true}");
                    } finally {
                        beat.cancel(false);
                    }
                }
                return null;
            });
        }
    }

    /**
     * Writes NDJSON frames; the heartbeat thread re-sends the last one so the client's read timeout never fires. A
     * frame that cannot be written marks the client gone and is dropped, never thrown: once committing has begun a
     * throw would stop the registration between its durable record and its index commit (a record {@code index
     * rebuild} would register, for a shard the live index never had). Validation checks the mark and stops, as v1's
     * does, before anything is stored.
     */
    static final class Frames implements ShardRegistration.Listener {
        private final OutputStream out;
        private String last;
        private long lastProgressNanos;
        private volatile boolean gone;
        private long done;
        private long total;

        Frames(OutputStream out) {
            this.out = out;
        }

        synchronized void send(String frame) {
            last = frame;
            if (gone) return;
            try {
                out.write((frame + "\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
            } catch (IOException | RuntimeException e) {
                gone = true;
            }
        }

        boolean clientGone() {
            return gone;
        }

        @Override
        public void working() {
            if (gone) throw new ClientLeft(done, total);
        }

        /** Whether a repeat is under way: at most one per stream, however long its client takes to read it. */
        private final java.util.concurrent.atomic.AtomicBoolean beating = new java.util.concurrent.atomic.AtomicBoolean();

        /**
         * The heartbeat thread's tick: the repeat itself runs on a virtual thread of its own, so a client that stops
         * reading blocks its own stream's write only, never the one thread that keeps every other stream alive.
         */
        void beat() {
            if (beating.compareAndSet(false, true)) {
                Thread.ofVirtual().name("shard-v2-heartbeat-write").start(() -> {
                    try {
                        repeatLast();
                    } finally {
                        beating.set(false);
                    }
                });
            }
        }

        synchronized void repeatLast() {
            if (last != null && !last.contains("\"result\"") && !last.contains("\"error\"")) {
                send(last);
            }
        }

        @Override
        public void verified(long done, long total) {
            this.done = done;
            this.total = total;
            working();
            // One frame per second at most: a shard can list 100,000 files.
            long now = System.nanoTime();
            if (done != 0 && done != total && now - lastProgressNanos < 1_000_000_000L) {
                return;
            }
            lastProgressNanos = now;
            send("{\"type\":\"validating\",\"verified\":" + done + ",\"total\":" + total + "}");
        }

        @Override
        public void committing(String stage) {
            send("{\"type\":\"committing\",\"stage\":\"" + stage + "\"}");
        }
    }
}
