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
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * The connection defences Helidon 4.5 lacks, installed as the listener's only connection selector (so it runs at
 * accept, before a byte is read) around Helidon's own HTTP/1 selector:
 * <ul>
 * <li>a <b>head deadline</b>: a connection whose request head (request line and headers) is not complete within
 *     {@code head.timeout} of its opening, or of its next request line when kept alive, is closed.
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
    /** One thread for every deadline; a cancelled one leaves the queue at once (two per request on a busy server). */
    private static final ScheduledThreadPoolExecutor TIMER = Timers.daemon("openxet-head-deadline");

    private final Duration headerTimeout;
    private final int perAddress;
    private final Map<InetAddress, AtomicInteger> open = new ConcurrentHashMap<>();
    private final Map<ConnectionContext, ScheduledFuture<?>> deadlines = new ConcurrentHashMap<>();
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
                if (!deadlines.containsKey(ctx)) arm(ctx);
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
        ScheduledFuture<?> deadline = TIMER.schedule(() -> {
            if (deadlines.remove(ctx) != null) {
                closedSlow.note(headerTimeout.toSeconds() + " s");
                // Closing the socket ends the connection thread's blocked read; Helidon then releases its slot.
                closeQuietly(ctx);
            }
        }, headerTimeout.toMillis(), TimeUnit.MILLISECONDS);
        ScheduledFuture<?> old = deadlines.put(ctx, deadline);
        if (old != null) old.cancel(false);
    }

    private void disarm(ConnectionContext ctx) {
        ScheduledFuture<?> deadline = deadlines.remove(ctx);
        if (deadline != null) deadline.cancel(false);
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
