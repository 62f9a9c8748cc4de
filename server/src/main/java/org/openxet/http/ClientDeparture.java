package org.openxet.http;

import io.helidon.webserver.http.ServerRequest;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * Whether the client of a request whose body has been read whole has since gone away, for work that writes nothing
 * until it is done (a v1 shard's validation, §5.3): the v2 stream learns it from a progress frame that fails, a v1
 * answer would only learn it when the answer is written, seconds of a core later.
 *
 * <p>How: at most every {@link #EVERY_NANOS}, one non-blocking read of a byte from the connection's own channel
 * ({@link ResponseChannel}). End of stream (the client closed its side: what an aborted fetch or a killed process
 * sends) or a reset means gone; nginx treats a client's FIN during an upstream request the same way. Nothing to read
 * means still there. A byte (a pipelined next request, which no stock client sends) cannot be put back, so the check
 * stops and the answer ends the connection instead ({@link #mustClose}). Where the channel is not reachable (TLS,
 * another Helidon) the client is never taken for gone.
 */
final class ClientDeparture {
    static final long EVERY_NANOS = 250_000_000L;

    private final SocketChannel channel;
    private long lastCheck = System.nanoTime();
    private boolean gone;
    private boolean mustClose;

    private ClientDeparture(SocketChannel channel) {
        this.channel = channel;
    }

    static ClientDeparture of(ServerRequest req) {
        return new ClientDeparture(ResponseChannel.of(req).orElse(null));
    }

    /** True once the client is known to have closed or reset the connection; checks the socket at most every 250 ms. */
    boolean gone() {
        if (gone || mustClose || channel == null) {
            return gone;
        }
        long now = System.nanoTime();
        if (now - lastCheck < EVERY_NANOS) {
            return false;
        }
        lastCheck = now;
        // The connection's virtual thread is this one, so nothing else reads the channel meanwhile; its blocking
        // mode is restored before Helidon reads or writes again.
        try {
            channel.configureBlocking(false);
            try {
                int n = channel.read(ByteBuffer.allocate(1));
                if (n < 0) gone = true;
                else if (n > 0) mustClose = true;
            } finally {
                channel.configureBlocking(true);
            }
        } catch (IOException e) {
            gone = true; // reset by the peer
        }
        return gone;
    }

    /** Whether a byte of a next request was consumed by a check, so the connection cannot carry another request. */
    boolean mustClose() {
        return mustClose;
    }
}
