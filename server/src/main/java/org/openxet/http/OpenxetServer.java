package org.openxet.http;

import com.sun.management.UnixOperatingSystemMXBean;
import io.helidon.http.Headers;
import io.helidon.http.HttpPrologue;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.accesslog.AccessLogEntry;
import io.helidon.webserver.accesslog.AccessLogFeature;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http1.Http1Config;
import io.helidon.webserver.http1.Http1ConnectionListener;
import org.openxet.service.Services;
import org.openxet.service.SignedUrls;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.ConnectException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.logging.Logger;

/**
 * The HTTP server: Helidon SE WebServer on virtual threads, one blocking handler per request. {@link #routing} is the
 * single routing function: {@code openxet serve} and every test call it, so no route exists only in one of them.
 */
public final class OpenxetServer {
    private static final Logger LOG = Logger.getLogger(OpenxetServer.class.getName());

    private OpenxetServer() {
    }

    /** Registers every route on {@code builder}; returns the table (for the route-walking test). */
    public static RouteTable routing(HttpRouting.Builder builder, Services services) {
        ServerMetrics metrics = ServerMetrics.create(services.config().metrics());
        metrics.tokens(services.tokens());
        Cors.of(services.config().corsOrigins()).ifPresent(builder::addFilter);
        RouteTable routes = new RouteTable(builder, services.tokens(), services.users(), metrics);
        Bodies bodies = new Bodies(services.config().uploadFloor(), services.config().uploadWindow());
        new MiscRoutes(services, bodies, metrics).register(routes);
        BodyBudget budget = BodyBudget.of(services.config().uploadMemory(), services.config().uploadFloor(),
                services.config().uploadWindow());
        new XorbRoutes(services, bodies, budget, metrics).register(routes);
        new ShardRoutes(services, bodies, budget, metrics).register(routes);
        SignedUrls urls = new SignedUrls(services.keys(), services.config().urlsTtl().toSeconds(), services.clock());
        new ReconstructionRoutes(services, urls).register(routes);
        new FetchRoutes(services, urls, metrics).register(routes);
        new DedupRoutes(services).register(routes);
        new BucketRoutes(services, bodies, budget).register(routes);
        new TokenRoutes(services).register(routes);
        routes.fallback();
        return routes;
    }

    /** Largest request body of any route: a shard's cap (the xorb cap is smaller). */
    static final long MAX_BODY_BYTES = Math.max(org.openxet.service.ShardRegistration.MAX_SHARD_BYTES,
            org.openxet.protocol.xorb.XorbFormat.MAX_UPLOAD_BYTES);

    /** Longest accepted request line (method, path and query, version). */
    static final int MAX_REQUEST_LINE = 16 * 1024;
    /** Most bytes of request headers, all of them: a token, a Range header of a whole entry's ranges (about 7.5 KiB). */
    static final int MAX_HEADERS = 16 * 1024;

    /** File descriptors kept free of connections: the SQLite index, bucket files, temp files, jars, the JVM itself. */
    static final long FD_RESERVE = 1024;
    /** Most connections accepted at once however high the fd limit: each costs a thread, buffers and kernel memory. */
    static final int MAX_CONNECTIONS = 10_000;

    /**
     * Connections accepted at once: below the process's file descriptor limit, so that idle connections cannot use up
     * the descriptors. When accept() fails for want of one, Helidon closes the listening socket for good while the
     * process stays up. At the limit Helidon stops accepting (it takes a permit before each accept): later clients
     * wait in the kernel's backlog until a connection ends, and cost no descriptor meanwhile.
     */
    static int connectionLimit() {
        long fds = ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean unix
                ? unix.getMaxFileDescriptorCount() : -1;
        if (fds <= 0) {
            return MAX_CONNECTIONS;
        }
        // A low limit (1024 is a common default) cannot spare the whole reserve: keep half of it for files then.
        long limit = fds > 2 * FD_RESERVE ? fds - FD_RESERVE : fds / 2;
        return (int) Math.max(1, Math.min(MAX_CONNECTIONS, limit));
    }

    /** Starts a server for {@code services} on the configured host and port. */
    public static WebServer start(Services services) {
        return start(services, connectionLimit());
    }

    /** {@link #start(Services)} accepting at most {@code maxConnections} connections at once (tests use a few). */
    static WebServer start(Services services, int maxConnections) {
        var config = services.config();
        var connections = config.connections();
        ConnectionGuard guard = new ConnectionGuard(connections.headTimeout(),
                connections.addressConnections() > 0 ? connections.addressConnections() : Math.max(1, maxConnections / 4));
        LOG.info("accepting at most " + maxConnections + " connections at once, " + guard.perAddress()
                + " from one client address");
        Http1Config http1 = Http1Config.builder()
                // The request line must hold the longest URL this server hands out: a v2 fetch URL carries up to
                // ReconstructionJson.MAX_RANGES_TEXT (7 KiB) of granted ranges, past Helidon's default of 4 KiB, which
                // answered 414 to a file using one xorb in a few hundred scattered places. The batch query's ids too.
                .maxPrologueLength(MAX_REQUEST_LINE)
                // Helidon's default too, set here so a Helidon upgrade cannot move it: larger heads are a 400.
                .maxHeadersSize(MAX_HEADERS)
                .addReceiveListener(receiving(guard.headListener(), new ReadListTrim()))
                .build();
        WebServer server = WebServer.builder()
                .host(config.host())
                .port(config.port())
                .maxTcpConnections(maxConnections)
                // Helidon's server applies no socket read timeout (readTimeout is a client option): ConnectionGuard
                // times request heads, Bodies request bodies; idle keep-alive connections are closed after the
                // clients' own pool idle time (60 s) has surely passed (idle.timeout, 90 s).
                // TCP_NODELAY: without it the last segment of every answer waits for the client's delayed ACK
                // (40 ms on Linux), which measured as a 3x slower median for large reconstruction answers.
                .connectionOptions(o -> o.tcpNoDelay(true))
                // Blocking socket streams, not Helidon's NIO wrapper: the wrapper stages every write through an 8 KiB
                // buffer, one syscall per 8 KiB, which made handing over a 23 MB answer take 27 ms instead of 11 ms.
                .useNio(false)
                // HTTP/1 through the connection guard alone (ConnectionGuard): no protocol Helidon discovers on
                // its own, since a second selector makes Helidon read a first byte before a connection is counted.
                .protocolsDiscoverServices(false)
                .protocols(List.of())
                .addConnectionSelector(guard.selector(http1))
                // Requests Helidon refuses before routing (a malformed request line, headers past 16 KiB) get the same
                // JSON error body as every other refusal, not an empty one.
                .directHandlers(Errors.directHandlers())
                // No body is larger than a shard or a xorb: Helidon answers a longer Content-Length 413 before
                // routing, and so never drains gigabytes a handler did not read (it drains any unread body otherwise).
                .maxPayloadSize(MAX_BODY_BYTES)
                // A kept-alive connection waiting for its next request line: checked every second.
                .idleConnectionTimeout(connections.idleTimeout())
                .idleConnectionPeriod(Duration.ofSeconds(1))
                .shutdownGracePeriod(connections.shutdownGrace())
                .shutdownHook(false)
                .addFeature(accessLog())
                .routing(r -> routing(r, services))
                .build();
        WebServer started = server.start();
        SendTimeout.apply(started.port(), config.sendTimeout()).ifPresent(why -> LOG.info("send.timeout is not"
                + " applied (" + why + "): a client that stops reading holds its request until it reads or leaves"));
        return started;
    }

    /**
     * One receive listener that hands each request's prologue and headers to {@code listeners} in order. Helidon 4.5
     * must be given a single one: it joins several into a listener that passes nothing on (its
     * {@code Http1ConnectionListenerUtil.ListFrameListener} overrides no method), which silently switched off the head
     * deadline when a second listener was added.
     */
    static Http1ConnectionListener receiving(Http1ConnectionListener... listeners) {
        return new Http1ConnectionListener() {
            @Override
            public void prologue(ConnectionContext ctx, HttpPrologue prologue) {
                for (Http1ConnectionListener l : listeners) l.prologue(ctx, prologue);
            }

            @Override
            public void headers(ConnectionContext ctx, Headers headers) {
                for (Http1ConnectionListener l : listeners) l.headers(ctx, headers);
            }
        };
    }

    /** How often {@link #exitWhenListenerStops} checks that the listening socket still takes connections. */
    static final Duration LISTENER_CHECK = Duration.ofSeconds(5);

    /**
     * Exits the process (status 1, after a SEVERE line) if the listening socket closes while the server is running, so
     * a supervisor restarts it. Helidon 4.5 closes the socket for good when accept() fails (no file descriptor left,
     * for one) and its listener thread then waits forever, while {@link WebServer#isRunning()} stays true: a live
     * process that serves no one. No API reports the listener's state, so a daemon thread connects to the port every
     * {@link #LISTENER_CHECK}: only a closed socket refuses a connection; a listener at its connection limit leaves it
     * in the backlog. A stop begun by a shutdown hook (how {@code openxet serve} stops) is not a failure.
     *
     * @param host the configured listen host; a wildcard address is checked on loopback
     */
    public static void exitWhenListenerStops(WebServer server, String host, BooleanSupplier stopping) {
        watchListener(server, host, LISTENER_CHECK, stopping, () -> {
            LOG.severe("the listening socket on port " + server.port() + " closed while the server was running;"
                    + " exiting so that a supervisor restarts the server");
            System.exit(1);
        });
    }

    /** Runs {@code onStopped} once if {@code server}'s listening socket refuses connections while it is running. */
    static Thread watchListener(WebServer server, String host, Duration every, BooleanSupplier stopping,
                                Runnable onStopped) {
        InetSocketAddress self = new InetSocketAddress(checkAddress(host), server.port());
        return Thread.ofPlatform().daemon(true).name("openxet-listener-watch").start(() -> {
            try {
                while (server.isRunning()) {
                    Thread.sleep(every);
                    // Twice a second apart: a refusal on a loopback address is not transient, but be sure.
                    if (refused(self)) {
                        Thread.sleep(1000);
                        if (server.isRunning() && refused(self) && !stopping.getAsBoolean() && !shuttingDown()) {
                            onStopped.run();
                            return;
                        }
                    }
                }
            } catch (InterruptedException e) {
                // asked to stop watching
            }
        });
    }

    private static InetAddress checkAddress(String host) {
        try {
            InetAddress configured = InetAddress.getByName(host);
            if (!configured.isAnyLocalAddress()) {
                return configured;
            }
            return configured instanceof Inet6Address ? InetAddress.getByName("::1") : InetAddress.getLoopbackAddress();
        } catch (UnknownHostException e) {
            return InetAddress.getLoopbackAddress();
        }
    }

    /** True only for a refused connection; a timeout (full backlog) or a local failure proves nothing. */
    private static boolean refused(InetSocketAddress address) {
        try (Socket probe = new Socket()) {
            probe.connect(address, 2000);
            return false;
        } catch (ConnectException e) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The JVM is running its shutdown hooks: it refuses new hooks then, and only then. */
    private static boolean shuttingDown() {
        Thread probe = new Thread(() -> {
        });
        try {
            Runtime.getRuntime().addShutdownHook(probe);
            Runtime.getRuntime().removeShutdownHook(probe);
            return false;
        } catch (IllegalStateException e) {
            return true;
        }
    }

    /**
     * Client address, method, path (never the query: signed URLs carry credentials), status, bytes, milliseconds. The
     * address is the connection's peer: behind a reverse proxy, the proxy's.
     */
    static AccessLogFeature accessLog() {
        return AccessLogFeature.builder()
                .clearEntries()
                .entries(List.<AccessLogEntry>of(
                        ctx -> ctx.serverRequest().remotePeer().address() instanceof InetSocketAddress a
                                ? a.getAddress().getHostAddress() : "-",
                        ctx -> ctx.serverRequest().prologue().method().text(),
                        ctx -> ctx.serverRequest().path().rawPath(),
                        ctx -> Integer.toString(ctx.serverResponse().status().code()),
                        // Body bytes: a body sent through the connection's channel (ChannelBodyStream) is not
                        // counted by Helidon, which saw only its first write.
                        ctx -> {
                            long sent = ChannelBodyStream.sentBytes(ctx.serverRequest().context());
                            return Long.toString(sent >= 0 ? sent : ctx.serverResponse().bytesWritten());
                        },
                        ctx -> ((ctx.responseNanoTime() - ctx.requestNanoTime()) / 1000) / 1000.0 + "ms"))
                .build();
    }
}
