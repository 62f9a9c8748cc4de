package org.openxet.service;

import org.openxet.protocol.MerkleHash;
import org.openxet.storage.Index;
import org.openxet.storage.IndexException;

import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * Whether the index answers ({@code GET /health}: the process is alive and its index open), asked of the index at most
 * once per {@link #FRESH} however often it is called. {@code /health} takes no token, and on PostgreSQL each query
 * takes one of the pool's {@code index.readers} + 1 connections that requests wait for, so a flood of health checks
 * made real requests wait for a connection and then answered them 503. A failure stands as long as a success: an
 * outage costs one failing query a second too. Callers meanwhile wait for the one query in flight.
 */
public final class Liveness {
    static final Duration FRESH = Duration.ofSeconds(1);

    private final Index index;
    private final LongSupplier nanoTime;
    private final ReentrantLock asking = new ReentrantLock();
    private boolean asked;
    private long askedAtNanos;
    private IndexException failure;

    public Liveness(Index index) {
        this(index, System::nanoTime);
    }

    Liveness(Index index, LongSupplier nanoTime) {
        this.index = index;
        this.nanoTime = nanoTime;
    }

    /** Returns when the index answered within the last {@link #FRESH}, else throws what it failed with. */
    public void check() throws IndexException {
        IndexException failed;
        asking.lock();
        try {
            if (!asked || nanoTime.getAsLong() - askedAtNanos >= FRESH.toNanos()) {
                try {
                    index.hasXorb(MerkleHash.ZERO);
                    failure = null;
                } catch (IndexException e) {
                    failure = e;
                }
                asked = true;
                askedAtNanos = nanoTime.getAsLong();
            }
            failed = failure;
        } finally {
            asking.unlock();
        }
        if (failed != null) throw failed;
    }
}
