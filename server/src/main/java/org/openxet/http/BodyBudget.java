package org.openxet.http;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The one budget of heap bytes that request bodies may pin at once: xorb and shard bodies as they arrive, and a
 * shard's parsed form. Bytes are taken as a body grows (Bodies), never as it is declared, so a client that declares
 * 64 MiB and trickles holds what it sent (at most twice that, as its buffer doubles), and the sum over every request
 * can never pass the budget, which is a fraction of the heap. A request that cannot get more within the wait is
 * answered 503 with Retry-After (the stock clients retry it with backoff, §5.10), never a 500 or an OutOfMemoryError.
 */
final class BodyBudget {
    /** The budget's share of the heap: the rest is for everything else a busy server holds (answers, caches, the JDK). */
    static final double HEAP_SHARE = 0.5;

    private final Semaphore freeKiB;
    private final long bytes;
    private final Duration wait;

    BodyBudget(long bytes, Duration wait) {
        this.bytes = bytes;
        // Not fair: a fair queue put every small step (a 256 KiB first buffer) behind one large waiter (a 64 MiB body's
        // last doubling), which made honest small uploads wait out whole windows under load; a waiter that does not
        // get its bytes within the wait is answered 503 and retried by its client either way.
        this.freeKiB = new Semaphore((int) Math.min(Integer.MAX_VALUE, Math.max(1, bytes >> 10)), false);
        this.wait = wait;
    }

    /** The most of the heap a configured budget may take: the rest keeps the server itself alive. */
    static final double MAX_HEAP_SHARE = 0.75;

    /**
     * {@code configured} bytes ({@code upload.memory}; 0: half the heap), never more than three quarters of the heap,
     * with {@code wait} for a request that needs more than is free.
     */
    static BodyBudget of(long configured, Duration wait) {
        long heap = Runtime.getRuntime().maxMemory();
        long most = (long) (heap * MAX_HEAP_SHARE);
        if (configured > most) {
            java.util.logging.Logger.getLogger(BodyBudget.class.getName()).warning("upload.memory " + configured
                    + " is more than three quarters of the " + heap + "-byte heap; using " + most);
        }
        return new BodyBudget(configured > 0 ? Math.min(configured, most) : (long) (heap * HEAP_SHARE), wait);
    }

    long bytes() {
        return bytes;
    }

    /** Bytes held by one request, grown as it needs more; closing it gives them all back (twice is harmless). */
    final class Lease implements AutoCloseable {
        private int heldKiB;

        private Lease() {
        }

        /**
         * Grows this lease to cover {@code total} bytes, waiting at most the budget's wait for the difference; more than
         * the whole budget, or nothing freed in time, is a 503.
         */
        void growTo(long total) throws HttpError {
            int kib = (int) Math.min(Integer.MAX_VALUE, (total + 1023) >> 10);
            if (kib <= heldKiB) return;
            int more = kib - heldKiB;
            boolean got;
            try {
                got = more <= (bytes >> 10) && freeKiB.tryAcquire(more, wait.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                got = false;
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
            if (heldKiB > 0) {
                freeKiB.release(heldKiB);
                heldKiB = 0;
            }
        }
    }

    Lease lease() {
        return new Lease();
    }

    /** Bytes free now (tests, metrics). */
    long freeBytes() {
        return (long) freeKiB.availablePermits() << 10;
    }
}
