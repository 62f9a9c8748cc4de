package org.openxet.service;

import java.time.Duration;
import java.util.logging.Logger;

/**
 * A node's copy of something other processes change in a store (the users, the signing keys): read again when older
 * than the caller allows, and, for a value the copy lacks (a token naming a key or a user generation it does not
 * know), read again soon after the request arrived but never more often than a floor, so a flood of unknown names
 * costs the store at most one read per floor. A store that cannot be read keeps the last copy, logged once until a
 * read succeeds again, rather than turn an index outage into refused tokens.
 */
final class RefreshedCopy<T> {
    private static final Logger LOG = Logger.getLogger(RefreshedCopy.class.getName());

    interface Source<T> {
        T read() throws Exception;
    }

    private final String what;
    private final Source<T> source;
    private final Duration floor;
    private volatile T value;
    private volatile long readAt;
    private boolean failing;

    RefreshedCopy(String what, Source<T> source, T first, Duration floor) {
        this.what = what;
        this.source = source;
        this.floor = floor;
        this.value = first;
        // No first copy: the first get reads.
        this.readAt = first == null ? System.nanoTime() - Duration.ofDays(1).toNanos() : System.nanoTime();
    }

    /** The copy as it is, never read again (for a source that keeps what did not change). */
    T last() {
        return value;
    }

    /** The copy, read again first if it is older than {@code maxAge}. */
    T get(Duration maxAge) {
        if (System.nanoTime() - readAt >= maxAge.toNanos()) {
            synchronized (this) {
                if (System.nanoTime() - readAt >= maxAge.toNanos()) read();
            }
        }
        return value;
    }

    /**
     * A copy read after {@code since} ({@link System#nanoTime}, when the request arrived): an earlier read's copy
     * cannot hold what was added since. Waits for the floor when the last read was too recent; one read then serves
     * every request waiting.
     */
    T readSince(long since) throws InterruptedException {
        while (true) {
            long wait;
            synchronized (this) {
                if (readAt - since > 0) return value;
                long idle = System.nanoTime() - readAt;
                if (idle >= floor.toNanos()) {
                    read();
                    return value;
                }
                wait = floor.toNanos() - idle;
            }
            Thread.sleep(Duration.ofNanos(wait));
        }
    }

    /** Reads now, a failure thrown (after a change this process made). */
    synchronized T readNow() throws Exception {
        readAt = System.nanoTime();
        try {
            value = source.read();
            failing = false;
        } catch (Exception e) {
            failing = true;
            throw e;
        }
        return value;
    }

    /**
     * A copy read after {@code since} with no floor, a failure thrown: where a stale copy will not do. Callers at
     * once share one read (each waits for the read in progress, whose copy is then recent enough).
     */
    synchronized T readAfter(long since) throws Exception {
        if (readAt - since > 0 && !failing) return value;
        return readNow();
    }

    private void read() {
        // Stamped first: a store that fails is asked again after the interval, not by every request meanwhile.
        readAt = System.nanoTime();
        try {
            value = source.read();
            if (failing) LOG.info(what + " read again");
            failing = false;
        } catch (Exception e) {
            if (!failing) LOG.warning("cannot re-read the " + what + ", keeping the last copy: " + e.getMessage());
            failing = true;
        }
    }
}
