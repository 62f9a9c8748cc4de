package org.openxet.http;

import io.helidon.common.buffers.BufferData;
import io.helidon.common.concurrency.limits.Limit;
import io.helidon.http.Headers;
import io.helidon.http.HttpPrologue;
import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.http1.Http1Config;
import io.helidon.webserver.http1.Http1ConnectionListener;
import io.helidon.webserver.http1.Http1ConnectionSelector;
import io.helidon.webserver.spi.ServerConnection;
import io.helidon.webserver.spi.ServerConnectionSelector;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * The connection defences Helidon 4.5 lacks, installed as the listener's only connection selector (so it runs at
 * accept, before a byte is read) around Helidon's own HTTP/1 selector:
 * <ul>
 * <li>a <b>head deadline</b>: a connection whose request head (request line and headers) is not complete within
 *     {@code head.timeout} of its opening, or of its next request line when kept alive, is closed (by a sweep
 *     every {@link #SWEEP_EVERY}, so up to that much later).
 *     Helidon's idle timeout only covers the wait for a request line, and a connection that never sends a byte was
 *     not even counted (with two selectors, Helidon reads the first byte before it registers the connection), so 605
 *     silent or trickling sockets held the connection cap for good;</li>
 * <li>a <b>per-address limit</b>: one client address may hold {@code address.connections} connections (default
 *     a quarter of the cap); more are closed at once, so one host cannot take every connection.</li>
 * </ul>
 * The request body is not its business: Bodies times body reads (pace floor, stall watch).
 */
final class ConnectionGuard {
    private static final Logger LOG = Logger.getLogger(ConnectionGuard.class.getName());
    /** How often the sweep looks for heads past their deadline: a slow head is closed at most this late. */
    static final Duration SWEEP_EVERY = Duration.ofMillis(250);
    /**
     * Every armed head deadline of every guard in this process, checked by one sweep every {@link #SWEEP_EVERY}.
     * Why a sweep and not a timer task each: a head is armed and disarmed once per request, and scheduling a task on
     * an idle timer wakes its thread (a futex call each way); at 1,000 requests/s the timer's queue and thread took
     * about 4 % of the server's CPU samples in the release rig (docs/BENCHMARKS.md, "Per-request overhead"). Arming
     * now costs a map put.
     */
    private static final Map<ConnectionContext, Armed> ARMED = new ConcurrentHashMap<>();

    static {
        Timers.daemon("openxet-head-deadline").scheduleWithFixedDelay(ConnectionGuard::sweep,
                SWEEP_EVERY.toMillis(), SWEEP_EVERY.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** A head's deadline ({@link System#nanoTime}) and the guard that set it. */
    private record Armed(ConnectionGuard guard, long deadlineNanos) {
    }

    private final Duration headerTimeout;
    private final int perAddress;
    private final Map<InetAddress, AtomicInteger> open = new ConcurrentHashMap<>();
    private final ThrottledLog closedSlow = new ThrottledLog("closed connections whose request head was not complete within");
    private final ThrottledLog refused = new ThrottledLog("closed connections over the per-address limit of");

    ConnectionGuard(Duration headerTimeout, int perAddress) {
        this.headerTimeout = headerTimeout;
        this.perAddress = perAddress;
    }

    int perAddress() {
        return perAddress;
    }

    /** The HTTP/1 listener that restarts the deadline at a kept-alive connection's request line and ends it at its headers. */
    Http1ConnectionListener headListener() {
        return new Http1ConnectionListener() {
            @Override
            public void prologue(ConnectionContext ctx, HttpPrologue prologue) {
                // A new connection's deadline runs from its opening; a kept-alive one's from this request line.
                if (!ARMED.containsKey(ctx)) arm(ctx);
            }

            @Override
            public void headers(ConnectionContext ctx, Headers headers) {
                disarm(ctx);
            }
        };
    }

    /** The selector to install (alone) on the listener, around Helidon's HTTP/1 selector for {@code http1}. */
    ServerConnectionSelector selector(Http1Config http1) {
        ServerConnectionSelector inner = Http1ConnectionSelector.builder().config(http1).build();
        return new ServerConnectionSelector() {
            @Override
            public int bytesToIdentifyConnection() {
                return inner.bytesToIdentifyConnection();
            }

            @Override
            public Support supports(BufferData data) {
                return inner.supports(data);
            }

            @Override
            public Set<String> supportedApplicationProtocols() {
                return inner.supportedApplicationProtocols();
            }

            @Override
            public ServerConnection connection(ConnectionContext ctx) {
                return guard(ctx, inner);
            }
        };
    }

    private ServerConnection guard(ConnectionContext ctx, ServerConnectionSelector selector) {
        InetAddress address = address(ctx.remotePeer().address());
        AtomicInteger count = open.computeIfAbsent(address, a -> new AtomicInteger());
        if (count.incrementAndGet() > perAddress) {
            release(address, count);
            refused.note(perAddress + " (last from " + address.getHostAddress() + ")");
            closeQuietly(ctx);
            throw new CloseConnectionException("over the per-address connection limit");
        }
        arm(ctx);
        ServerConnection inner;
        try {
            inner = selector.connection(ctx);
        } catch (RuntimeException e) {
            disarm(ctx);
            release(address, count);
            throw e;
        }
        return new ServerConnection() {
            @Override
            public void handle(Limit limit) throws InterruptedException {
                try {
                    inner.handle(limit);
                } finally {
                    disarm(ctx);
                    release(address, count);
                }
            }

            @Override
            public Duration idleTime() {
                return inner.idleTime();
            }

            @Override
            public void close(boolean interrupt) {
                inner.close(interrupt);
            }
        };
    }

    private void release(InetAddress address, AtomicInteger count) {
        if (count.decrementAndGet() == 0) {
            open.remove(address, count);
        }
    }

    private static InetAddress address(SocketAddress peer) {
        return peer instanceof InetSocketAddress inet ? inet.getAddress() : InetAddress.getLoopbackAddress();
    }

    private void arm(ConnectionContext ctx) {
        ARMED.put(ctx, new Armed(this, System.nanoTime() + headerTimeout.toNanos()));
    }

    private static void disarm(ConnectionContext ctx) {
        ARMED.remove(ctx);
    }

    /**
     * Closes every connection whose head is past its deadline. Nothing may escape: a periodic task that throws is
     * never run again, and the deadlines would stop with it.
     */
    private static void sweep() {
        long now = System.nanoTime();
        ARMED.forEach((ctx, armed) -> {
            if (now - armed.deadlineNanos() >= 0 && ARMED.remove(ctx, armed)) {
                try {
                    armed.guard().closedSlow.note(armed.guard().headerTimeout.toSeconds() + " s");
                    // Closing the socket ends the connection thread's blocked read; Helidon then releases its slot.
                    closeQuietly(ctx);
                } catch (RuntimeException e) {
                    LOG.warning("could not close a connection past its head deadline: " + e);
                }
            }
        });
    }

    private static void closeQuietly(ConnectionContext ctx) {
        try {
            ctx.serverSocket().close();
        } catch (RuntimeException alreadyClosed) {
            // PlainSocket.close throws once the socket is closed
        }
    }

    /**
     * One log line per kind of event at most every ten seconds, with how many happened since: a flood of bad
     * connections is one line a ten seconds, not a line each (and never names more than one address).
     */
    private static final class ThrottledLog {
        private static final long EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);
        private final String what;
        private final AtomicLong unlogged = new AtomicLong();
        private final AtomicLong lastNanos = new AtomicLong(System.nanoTime() - EVERY_NANOS);

        ThrottledLog(String what) {
            this.what = what;
        }

        void note(String detail) {
            long n = unlogged.incrementAndGet();
            long last = lastNanos.get();
            long now = System.nanoTime();
            if (now - last >= EVERY_NANOS && lastNanos.compareAndSet(last, now)) {
                unlogged.addAndGet(-n);
                LOG.info(what + " " + Errors.loggable(detail) + ": " + n + " since the last such line");
            }
        }
    }
}
