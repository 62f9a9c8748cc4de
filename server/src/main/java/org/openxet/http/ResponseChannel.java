package org.openxet.http;

import io.helidon.common.socket.HelidonSocket;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.Socket;
import java.nio.channels.SocketChannel;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * The connection's own {@link SocketChannel} under a Helidon HTTP/1 response, so a large body can be written from
 * direct memory after Helidon has sent the status line and headers.
 *
 * <p>Why: Helidon 4.5's blocking sockets ({@code PlainSocket}, which this server uses) write every buffer as a heap
 * array to the accepted channel's socket adaptor, and the JDK copies the whole rest of such a write into a temporary
 * direct buffer before every {@code write} call, again on each retry when the socket takes it in parts. Written from
 * direct memory, a large answer crosses loopback in about half the time, with less than half the p99
 * (docs/BENCHMARKS-HISTORY.md, "Answers written to the socket channel"). No
 * Helidon API exposes the channel, so it is read from two private fields: {@code Http1ServerRequest.ctx} (the
 * connection) and {@code PlainSocket.delegate} (its socket, whose {@link Socket#getChannel()} is public). Where either
 * is missing (another Helidon version, TLS, HTTP/2, the NIO socket) bodies go through {@link
 * ServerResponse#outputStream()} as before, and one INFO line says so; {@code ResponseChannelTest} fails on a Helidon
 * where the channel is not found.
 */
public final class ResponseChannel {
    private static final Logger LOG = Logger.getLogger(ResponseChannel.class.getName());
    private static final String REQUEST_CLASS = "io.helidon.webserver.http1.Http1ServerRequest";
    private static final String SOCKET_CLASS = "io.helidon.common.socket.PlainSocket";

    /** {@code Http1ServerRequest.ctx} and {@code PlainSocket.delegate}, or null when this Helidon has neither. */
    private static final VarHandle CONNECTION;
    private static final VarHandle SOCKET;
    private static final Class<?> REQUEST_TYPE;
    private static final Class<?> SOCKET_TYPE;

    static {
        VarHandle connection = null;
        VarHandle socket = null;
        Class<?> requestType = null;
        Class<?> socketType = null;
        try {
            requestType = Class.forName(REQUEST_CLASS);
            socketType = Class.forName(SOCKET_CLASS);
            connection = MethodHandles.privateLookupIn(requestType, MethodHandles.lookup())
                    .findVarHandle(requestType, "ctx", ConnectionContext.class);
            socket = MethodHandles.privateLookupIn(socketType, MethodHandles.lookup())
                    .findVarHandle(socketType, "delegate", Socket.class);
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.info("answers go through Helidon's response stream: its connection's socket channel is not reachable"
                    + " here (" + e + ")");
            connection = null;
            socket = null;
        }
        CONNECTION = connection;
        SOCKET = socket;
        REQUEST_TYPE = requestType;
        SOCKET_TYPE = socketType;
    }

    private ResponseChannel() {
    }

    /**
     * The blocking plaintext channel under {@code req}'s HTTP/1 connection, if this Helidon lets it be found. Never
     * for a TLS socket ({@code TlsSocket} extends {@code PlainSocket}: its channel carries ciphertext) nor for another
     * protocol's request.
     */
    static Optional<SocketChannel> of(ServerRequest req) {
        if (CONNECTION == null || !REQUEST_TYPE.isInstance(req)) {
            return Optional.empty();
        }
        HelidonSocket socket;
        try {
            socket = ((ConnectionContext) CONNECTION.get(req)).serverSocket();
        } catch (UnsupportedOperationException e) {
            return Optional.empty();
        }
        if (socket == null || socket.getClass() != SOCKET_TYPE) {
            return Optional.empty();
        }
        SocketChannel channel = ((Socket) SOCKET.get(socket)).getChannel();
        if (channel == null || !channel.isBlocking() || !channel.isOpen()) {
            return Optional.empty();
        }
        return Optional.of(channel);
    }

    /**
     * A stream for a response body of {@code length} bytes (already set as its Content-Length): its first write goes
     * through Helidon with the headers, every later one straight to the connection's channel. Helidon's own stream
     * where there is no channel, or for a body too small to gain.
     */
    public static OutputStream body(ServerRequest req, ServerResponse res, long length) throws IOException {
        if (length >= ChannelBodyStream.MIN_BODY) {
            Optional<SocketChannel> channel = of(req);
            if (channel.isPresent()) {
                return new ChannelBodyStream(res.outputStream(), channel.get(), length, req.context());
            }
        }
        return res.outputStream();
    }
}
