package org.openxet.service;

import org.openxet.protocol.MerkleHash;
import org.openxet.storage.Bucket;
import org.openxet.storage.Index;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Whether this node should be sent traffic ({@code GET /ready}): its index and its bucket both answer, it has warmed up
 * (a fresh process exercises its read path first, {@code warmup.duration}) and it is not draining (stopping after a
 * SIGTERM). A load balancer polls this, so its cost is bounded however often it is asked:
 * at most one probe (one index query, one bucket lookup) is in flight, a finished one is reused for
 * {@link #FRESH}, and an answer waits at most {@link #DEADLINE} for it, so a hung database (whose pool may wait 30 s
 * for a connection) makes the node "not ready" within two seconds instead of holding one thread per poll.
 */
public final class Readiness {
    /** How long an answer waits for the probe before it says the node is not ready. */
    public static final Duration DEADLINE = Duration.ofSeconds(2);
    /** How long a finished probe's result stands for every later answer. */
    static final Duration FRESH = Duration.ofSeconds(1);
    /** A key no object is ever stored under: looking it up proves the bucket answers. */
    static final String PROBE_KEY = "ready-probe";
    private static final Logger LOG = Logger.getLogger(Readiness.class.getName());

    /** The answer: ready, or why not (words for an operator; no host, path or credential). */
    public record State(boolean ready, String reason) {
        static final State READY = new State(true, "ready");
    }

    private final Index index;
    private final Bucket bucket;
    private volatile boolean draining;
    /** Set while the server warms itself up before its first request (http/WarmUp): alive, not yet at full rate. */
    private volatile boolean warming;
    /** What the probe in flight is waiting for: "index", then "bucket". */
    private volatile String probing = "index";
    private CompletableFuture<State> probe;
    private long probedAtNanos;
    /** The last probe's readiness, so a change (not every probe) is logged. */
    private boolean wasReady = true;

    public Readiness(Index index, Bucket bucket) {
        this.index = index;
        this.bucket = bucket;
    }

    /** From now on the node is not ready: it is stopping, and a balancer should send its traffic elsewhere. */
    public void drain() {
        draining = true;
    }

    public boolean draining() {
        return draining;
    }

    /** Until {@link #warmedUp()} the node is not ready: it is warming up and would answer its first requests slowly. */
    public void warmingUp() {
        warming = true;
    }

    public void warmedUp() {
        warming = false;
    }

    public State check() {
        if (draining) return new State(false, "draining: the server is stopping");
        if (warming) {
            return new State(false, "warming up: the server is reading its index into memory and exercising its read"
                    + " path before it takes traffic");
        }
        CompletableFuture<State> current;
        synchronized (this) {
            long now = System.nanoTime();
            if (probe == null || (probe.isDone() && now - probedAtNanos > FRESH.toNanos())) {
                CompletableFuture<State> next = new CompletableFuture<>();
                probe = next;
                probedAtNanos = now;
                Thread.ofVirtual().name("readiness-probe").start(() -> next.complete(probeNow()));
            }
            current = probe;
        }
        try {
            return current.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return new State(false, "the " + probing + " did not answer within " + DEADLINE.toSeconds() + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new State(false, "interrupted");
        } catch (ExecutionException e) {
            return new State(false, "the probe failed");
        }
    }

    private State probeNow() {
        State s;
        Exception cause = null;
        try {
            probing = "index";
            index.hasXorb(MerkleHash.ZERO);
            try {
                probing = "bucket";
                bucket.size(PROBE_KEY);
                s = State.READY;
            } catch (Exception e) {
                cause = e;
                s = new State(false, "the bucket does not answer");
            }
        } catch (Exception e) {
            cause = e;
            s = new State(false, "the index does not answer");
        }
        logChange(s, cause);
        return s;
    }

    private synchronized void logChange(State s, Exception cause) {
        if (s.ready() == wasReady) return;
        wasReady = s.ready();
        if (s.ready()) {
            LOG.info("ready again: the index and the bucket answer");
        } else {
            // The exception's class and message (a refused connection, a timeout), not the storage URL.
            LOG.log(Level.WARNING, "not ready: " + s.reason() + " (" + cause.getClass().getSimpleName() + ": "
                    + cause.getMessage() + ")");
        }
    }
}
