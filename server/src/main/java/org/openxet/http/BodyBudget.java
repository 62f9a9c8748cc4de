package org.openxet.http;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * The one budget of heap bytes that request bodies may pin at once: xorb and shard bodies as they arrive, and a
 * shard's parsed form. Bytes are taken as a body grows (Bodies), never as it is declared, so a client that declares
 * 64 MiB and trickles holds what it sent (at most twice that, as its buffer doubles), and the sum over every request
 * can never pass the budget, which is a fraction of the heap. A request that cannot get more within the wait is
 * answered 503 with Retry-After (hf_xet retries it with backoff; @huggingface/hub throws it to its caller, §5.10),
 * never a 500 or an OutOfMemoryError.
 *
 * <p>Slow holders yield under pressure: a sender can send fast to grow its buffer, then trickle at the pace floor for
 * hours. While a body waits for memory that is not free, the budget cuts the body that holds the most while arriving
 * slower than {@link #slowBytesPerSecond} over the last {@link #slowWindowNanos} (its connection is closed: the clients
 * retry), looking again every {@link #CUT_SLICE_NANOS} of the wait, so slow senders cannot keep the memory from uploads
 * that arrive.
 */
final class BodyBudget {
    private static final Logger LOG = Logger.getLogger(BodyBudget.class.getName());
    /** The budget's share of the heap: the rest is for everything else a busy server holds (answers, caches, the JDK). */
    static final double HEAP_SHARE = 0.5;
    /** The most of the heap a configured budget may take: the rest keeps the server itself alive. */
    static final double MAX_HEAP_SHARE = 0.75;
    /** Slower than the pace floor times this, over a window, a body yields its memory under pressure. */
    static final int SLOW_FLOOR_MULTIPLE = 16;
    /** How often a request waiting for memory looks again for a slow holder to cut. */
    private static final long CUT_SLICE_NANOS = 100_000_000L;

    private final Semaphore freeKiB;
    private final long bytes;
    private final Duration wait;
    private final long slowBytesPerSecond;
    private final long slowWindowNanos;
    private final Set<Lease> active = ConcurrentHashMap.newKeySet();

    /**
     * @param slowBytesPerSecond under pressure, a body arriving slower than this over {@code slowWindow} is cut
     * @param slowWindow         how long a body is watched before it can be found slow
     */
    BodyBudget(long bytes, Duration wait, long slowBytesPerSecond, Duration slowWindow) {
        this.bytes = bytes;
        // Not fair: a fair queue put every small step (a 256 KiB first buffer) behind one large waiter (a 64 MiB body's
        // last doubling), which made honest small uploads wait out whole windows under load; a waiter that does not
        // get its bytes within the wait is answered 503 and retried by its client either way.
        this.freeKiB = new Semaphore((int) Math.min(Integer.MAX_VALUE, Math.max(1, bytes >> 10)), false);
        this.wait = wait;
        this.slowBytesPerSecond = slowBytesPerSecond;
        this.slowWindowNanos = slowWindow.toNanos();
    }

    /**
     * {@code configured} bytes ({@code upload.memory}; 0: half the heap), never more than three quarters of the heap;
     * {@code window} ({@code upload.window}) is both the wait for memory and the window a body's pace is judged over,
     * against {@code floor} ({@code upload.floor}) × {@link #SLOW_FLOOR_MULTIPLE}.
     */
    static BodyBudget of(long configured, long floor, Duration window) {
        long heap = Runtime.getRuntime().maxMemory();
        long most = (long) (heap * MAX_HEAP_SHARE);
        if (configured > most) {
            LOG.warning("upload.memory " + configured + " is more than three quarters of the " + heap
                    + "-byte heap; using " + most);
        }
        return new BodyBudget(configured > 0 ? Math.min(configured, most) : (long) (heap * HEAP_SHARE), window,
                floor * SLOW_FLOOR_MULTIPLE, window);
    }

    /** Bytes held by one request, grown as it needs more; closing it gives them all back (twice is harmless). */
    final class Lease implements AutoCloseable {
        private final Thread reader = Thread.currentThread();
        /** Written by its reader, read by another request's cutSlowest. */
        private volatile int heldKiB;
        /** Bytes received so far, and where the current pace window began (bytes, nanos). */
        private volatile long received;
        private volatile long markBytes;
        private volatile long markNanos = System.nanoTime();
        /** The pace of the last whole window, bytes/s; unknown (never slow) before one has passed. */
        private volatile long windowRate = Long.MAX_VALUE;
        private volatile boolean complete;
        private volatile boolean cut;

        private Lease() {
        }

        /** The body has {@code total} bytes so far (called as they arrive). */
        void received(long total) {
            received = total;
            long now = System.nanoTime();
            long span = now - markNanos;
            if (span >= slowWindowNanos) {
                windowRate = (total - markBytes) * 1_000_000_000L / span;
                markBytes = total;
                markNanos = now;
            }
        }

        /** The body is all here: from now on its bytes are in use, never cut. */
        void complete() {
            complete = true;
        }

        /** Whether the budget cut this body for a slow one (its reader was interrupted, its socket closed). */
        boolean cut() {
            return cut;
        }

        /** The body's recent pace, bytes/s: the last whole window's, or, stalled past a window, since then. */
        private long pace(long now) {
            long span = now - markNanos;
            if (span >= slowWindowNanos) {
                return (received - markBytes) * 1_000_000_000L / span;
            }
            return windowRate;
        }

        /**
         * Grows this lease to cover {@code total} bytes, waiting at most the budget's wait for the difference; more than
         * the whole budget, or nothing freed in time, is a 503.
         */
        void growTo(long total) throws HttpError {
            int kib = (int) Math.min(Integer.MAX_VALUE, (total + 1023) >> 10);
            if (kib <= heldKiB) return;
            int more = kib - heldKiB;
            boolean got = false;
            if (more <= (bytes >> 10)) {
                got = freeKiB.tryAcquire(more);
                // Looks for a slow holder again every slice of the wait: a holder's pace is known only once it has
                // been watched a whole window, and one may cross that line while this request waits.
                long deadline = System.nanoTime() + wait.toNanos();
                try {
                    for (long left = wait.toNanos(); !got && left > 0; left = deadline - System.nanoTime()) {
                        cutSlowest(this);
                        got = freeKiB.tryAcquire(more, Math.min(left, CUT_SLICE_NANOS), TimeUnit.NANOSECONDS);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (!got) {
                throw new HttpError(503, "busy", "the server is receiving as many upload bytes as it can hold ("
                        + (bytes >> 20) + " MiB); retry later");
            }
            heldKiB = kib;
        }

        /** Gives back all but {@code total} bytes (a buffer replaced by a smaller one). */
        void shrinkTo(long total) {
            int kib = (int) Math.min(Integer.MAX_VALUE, (total + 1023) >> 10);
            if (kib >= heldKiB) return;
            freeKiB.release(heldKiB - kib);
            heldKiB = kib;
        }

        @Override
        public void close() {
            active.remove(this);
            if (heldKiB > 0) {
                freeKiB.release(heldKiB);
                heldKiB = 0;
            }
        }
    }

    Lease lease() {
        Lease lease = new Lease();
        active.add(lease);
        return lease;
    }

    /**
     * Cuts, for {@code asking}, the body that holds the most memory among those still arriving, watched for a whole
     * window and arriving slower than the slow pace; none such: nothing happens and {@code asking} waits.
     */
    private void cutSlowest(Lease asking) {
        long now = System.nanoTime();
        Lease victim = null;
        for (Lease l : active) {
            // A body younger than a window has no pace yet (Long.MAX_VALUE): never slow.
            if (l == asking || l.complete || l.cut || l.pace(now) >= slowBytesPerSecond) continue;
            if (victim == null || l.heldKiB > victim.heldKiB) victim = l;
        }
        if (victim != null) {
            victim.cut = true;
            LOG.info("upload memory is short: cut a body arriving at " + victim.pace(now) + " B/s (under "
                    + slowBytesPerSecond + " B/s) holding " + victim.heldKiB + " KiB; its client retries");
            // Interrupting a virtual thread blocked on its socket closes the socket (as Bodies' stall watch does).
            victim.reader.interrupt();
        }
    }

    /** Bytes free now (tests, metrics). */
    long freeBytes() {
        return (long) freeKiB.availablePermits() << 10;
    }
}
