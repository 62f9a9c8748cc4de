package org.openxet.http;

import io.helidon.common.buffers.DataReader;
import io.helidon.webserver.ServerConnectionException;
import io.helidon.webserver.http.ServerRequest;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.util.Arrays;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * Reads request bodies into memory with a size cap (413 beyond it), a pace floor and a stall watch: a body arriving
 * slower than {@code floor} bytes/s on average once {@code window} has passed is cut with 408, which the stock client
 * retries (§5.10), and one that receives nothing for a whole window has its connection closed, so an honest slow
 * link recovers and an idle sender cannot pin a thread, its buffer and its share of the upload budget.
 */
public final class Bodies {
    private static final Logger LOG = Logger.getLogger(Bodies.class.getName());
    private final long floorBytesPerSecond;
    private final long windowNanos;

    public Bodies(long floorBytesPerSecond, java.time.Duration window) {
        this.floorBytesPerSecond = floorBytesPerSecond;
        this.windowNanos = window.toNanos();
    }

    /** The first buffer of a body; it doubles from there as bytes arrive (at most twice what was received). */
    static final int FIRST_BUFFER = 256 * 1024;

    /**
     * A body read into an array: {@code data[0, length)}, its bytes held in the upload budget until it is closed (a
     * caller may grow the same lease for what it builds from the body).
     */
    public record Body(byte[] data, int length, BodyBudget.Lease lease) implements AutoCloseable {
        @Override
        public void close() {
            lease.close();
        }
    }

    /**
     * Reads a body of at most {@code cap} bytes, taking its memory from {@code budget} as the bytes arrive: the
     * declared length only bounds the buffer, so a client declaring the cap and trickling pins what it sent, not the
     * cap. Over the budget for the budget's wait → 503 (BodyBudget).
     */
    public Body read(ServerRequest req, long cap, BodyBudget budget) throws HttpError {
        long declared = req.headers().contentLength().orElse(-1L);
        if (declared > cap) {
            throw new HttpError(413, "payload_too_large", "body of " + declared + " bytes exceeds the limit of " + cap);
        }
        long limit = declared >= 0 ? declared : cap;
        BodyBudget.Lease lease = budget.lease();
        InputStream in = req.content().inputStream();
        int n = 0;
        long start = System.nanoTime();
        StallWatch watch = null;
        try {
            int size = (int) Math.min(limit, FIRST_BUFFER);
            lease.growTo(size);
            byte[] buf = new byte[size];
            watch = new StallWatch();
            while (true) {
                if (n == buf.length) {
                    if (n == limit) {
                        if (declared >= 0 || in.read() < 0) break;
                        throw new HttpError(413, "payload_too_large", "body exceeds the limit of " + cap + " bytes");
                    }
                    int next = (int) Math.min(limit, 2L * buf.length);
                    // Old and new buffer both live during the copy.
                    lease.growTo((long) buf.length + next);
                    buf = Arrays.copyOf(buf, next);
                    lease.shrinkTo(next);
                }
                int r = in.read(buf, n, buf.length - n);
                if (r < 0) {
                    break;
                }
                n += r;
                watch.progress();
                lease.received(n);
                checkPace(n, System.nanoTime() - start);
            }
            if (declared >= 0 && n < declared) {
                throw HttpError.badRequest("truncated body: " + n + " of " + declared + " bytes");
            }
            if (declared > 0) {
                // The end of the entity, read: Helidon marks a body consumed only when its stream has returned -1, and
                // a refusal after a whole body (a hash mismatch) otherwise ended the connection as if bytes were left.
                in.read();
            }
            lease.complete();
            return new Body(buf, n, lease);
        } catch (HttpError e) {
            lease.close();
            throw e;
        } catch (IOException | RuntimeException e) {
            lease.close();
            if (lease.cut()) {
                // The budget closed this slow body's socket for an upload that needed the memory (BodyBudget).
                Thread.interrupted();
                LOG.info("request body cut after " + n + " bytes: slow, and its memory was needed; connection closed");
                throw new ServerConnectionException("slow request body cut under memory pressure", e);
            }
            throw readFailure(e, n, start, watch);
        } finally {
            if (watch != null) watch.stop();
        }
    }

    /** The status for a body read that threw after {@code bytes}: a stall is 408, anything else 400. */
    private RuntimeException readFailure(Exception e, long bytes, long startNanos, StallWatch watch) throws HttpError {
        long elapsed = System.nanoTime() - startNanos;
        if (watch != null && watch.fired()) {
            // Our own watch closed the socket: nothing can be answered on it, so say why here and end quietly.
            Thread.interrupted();
            LOG.info("request body stalled: no byte for " + windowNanos / 1_000_000_000L + " s after " + bytes
                    + " bytes; connection closed");
            throw new ServerConnectionException("request body stalled", e);
        }
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof SocketTimeoutException) {
                throw slow(bytes, elapsed);
            }
        }
        if (Errors.clientGone(e)) {
            // reset mid-body: no one to answer; Errors logs it quietly
            return e instanceof RuntimeException r ? r : new UncheckedIOException((IOException) e);
        }
        if (e instanceof DataReader.InsufficientDataAvailableException) {
            // Helidon: the connection ended before Content-Length bytes arrived.
            throw HttpError.badRequest("truncated body: the connection closed after " + bytes + " bytes");
        }
        if (e instanceof IOException || e instanceof UncheckedIOException) {
            throw HttpError.badRequest("request body could not be read: " + e.getMessage());
        }
        return (RuntimeException) e;
    }

    private void checkPace(long bytes, long elapsedNanos) throws HttpError {
        if (elapsedNanos > windowNanos && bytes * 1_000_000_000L < floorBytesPerSecond * elapsedNanos) {
            throw slow(bytes, elapsedNanos);
        }
    }

    private HttpError slow(long bytes, long elapsedNanos) {
        return new HttpError(408, "request_timeout", "request body arrived at " + (bytes * 1_000_000_000L / Math.max(1, elapsedNanos))
                + " B/s, below the floor of " + floorBytesPerSecond + " B/s");
    }

    /**
     * Reads and discards a body of at most {@code cap} bytes (telemetry) through one small buffer, under the same cap
     * and pace floor as {@link #read}: the declared length is never allocated, since nothing is kept, so many
     * connections each declaring the cap and sending a byte cost a few KiB each, not the cap each.
     */
    public void discard(ServerRequest req, long cap) throws HttpError {
        long declared = req.headers().contentLength().orElse(-1L);
        if (declared > cap) {
            throw new HttpError(413, "payload_too_large", "body of " + declared + " bytes exceeds the limit of " + cap);
        }
        InputStream in = req.content().inputStream();
        byte[] buf = new byte[DISCARD_BUFFER];
        long n = 0;
        long start = System.nanoTime();
        StallWatch watch = new StallWatch();
        try {
            int r;
            while ((r = in.read(buf)) >= 0) {
                n += r;
                watch.progress();
                if (n > cap) {
                    throw new HttpError(413, "payload_too_large", "body exceeds the limit of " + cap + " bytes");
                }
                checkPace(n, System.nanoTime() - start);
            }
        } catch (IOException | RuntimeException e) {
            throw readFailure(e, n, start, watch);
        } finally {
            watch.stop();
        }
        if (declared >= 0 && n < declared) {
            throw HttpError.badRequest("truncated body: " + n + " of " + declared + " bytes");
        }
    }

    /**
     * Ends a body read that receives nothing for a whole window. The pace check only runs when bytes arrive, and the
     * listener sets no socket read timeout (Helidon's server applies none), so a sender that stops mid-body held its
     * thread, its buffer and its share of the upload budget until it hung up itself. Interrupting a virtual thread
     * blocked on a socket closes the socket (JEP 444): the client sees the connection end and retries.
     */
    private final class StallWatch {
        private final Thread reader = Thread.currentThread();
        private volatile long lastProgress = System.nanoTime();
        private volatile boolean fired;
        /** Guarded by this: once the read is over, the reader's thread is never interrupted. */
        private boolean stopped;
        private final ScheduledFuture<?> check;

        StallWatch() {
            long period = Math.max(100_000_000L, windowNanos / 4);
            check = STALLS.scheduleAtFixedRate(this::check, period, period, TimeUnit.NANOSECONDS);
        }

        void progress() {
            lastProgress = System.nanoTime();
        }

        private synchronized void check() {
            if (!stopped && !fired && System.nanoTime() - lastProgress > windowNanos) {
                fired = true;
                reader.interrupt();
            }
        }

        boolean fired() {
            return fired;
        }

        /**
         * Ends the watch, on the reader's thread. A check that fired just as the last bytes arrived leaves only the
         * interrupt flag behind: cleared here, so it cannot break the file writes that follow.
         */
        synchronized void stop() {
            stopped = true;
            ScheduledFuture<?> c = check;
            if (c != null) c.cancel(false); // null only if a check ran before the constructor stored it
            if (fired) Thread.interrupted();
        }
    }

    /**
     * One daemon thread checks every body read in progress. A finished read's cancelled check leaves its queue at once
     * ({@link Timers}): left until its next run (up to upload.window / 4, 5 s by default), each check and the reader
     * thread it holds stayed reachable that long, a thousand or more finished reads at a few hundred uploads a second.
     */
    private static final ScheduledThreadPoolExecutor STALLS = Timers.daemon("openxet-body-stalls");

    /** Stall checks scheduled and not yet cancelled: one per body read in progress. */
    static int pendingStallChecks() {
        return STALLS.getQueue().size();
    }

    /** The one buffer a discarded body passes through. */
    static final int DISCARD_BUFFER = 8 * 1024;
}
