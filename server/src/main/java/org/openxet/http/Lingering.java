package org.openxet.http;

import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.http.ServerRequest;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Ends a connection whose request body was left unread after its answer was sent (a 401 to an upload, a 413, a 503):
 * the answer's end is signalled (FIN), then up to {@link #MAX_BYTES} of what the client is still sending are read and
 * dropped for at most {@link #MAX_MILLIS}, then the connection is closed. Closing at once with unread bytes in the
 * socket makes the kernel answer with a reset, which can discard the answer before the client reads it (an 8 MiB
 * telemetry body got a reset instead of its 413); reading without a bound is what a slow sender of a huge body wants.
 * nginx's lingering close does the same.
 */
final class Lingering {
    static final long MAX_BYTES = 16L << 20;
    static final long MAX_MILLIS = 2_000;
    private static final ScheduledExecutorService TIMER = Timers.daemon("openxet-lingering-close");

    private Lingering() {
    }

    /** Whether {@code req} came with a body that was not read to its end: its connection is to be ended here. */
    static boolean bodyLeft(ServerRequest req) {
        return req.content().hasEntity() && !req.content().consumed();
    }

    /**
     * Drains briefly, then throws the exception that makes Helidon close the connection (always); {@code why} is its
     * message. Thrown from a handler, it passes through {@link Errors#send} untouched.
     */
    static void close(ServerRequest req, String why) {
        Optional<SocketChannel> channel = ResponseChannel.of(req);
        if (channel.isPresent()) {
            drain(channel.get());
        }
        throw new CloseConnectionException(why);
    }

    private static void drain(SocketChannel ch) {
        Thread self = Thread.currentThread();
        // Interrupting a thread blocked in a channel read closes the channel: the time bound.
        ScheduledFuture<?> stop = TIMER.schedule(self::interrupt, MAX_MILLIS, TimeUnit.MILLISECONDS);
        try {
            ch.shutdownOutput();
            ByteBuffer buf = ByteBuffer.allocate(16 * 1024);
            long n = 0;
            while (n < MAX_BYTES) {
                buf.clear();
                int r = ch.read(buf);
                if (r < 0) break;
                n += r;
            }
        } catch (IOException e) {
            // the client closed first, or the time was up: either way the connection ends here
        } finally {
            stop.cancel(false);
            Thread.interrupted();
        }
    }
}
