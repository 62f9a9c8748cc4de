package org.openxet.gates;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * A plain JDK {@code SocketChannel} server on a loopback port, one platform thread per connection, TCP_NODELAY on: the
 * base of the gates' comparisons without Helidon. Not an HTTP server: subclasses read a request head with
 * {@link #readHead} and answer it themselves, keeping the connection.
 */
abstract class PlainLoopbackServer implements AutoCloseable {
    private final ServerSocketChannel listener;
    private final String name;

    PlainLoopbackServer(String name) throws IOException {
        this.name = name;
        listener = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    /** Starts accepting; a subclass calls it last in its constructor, once what {@link #serve} reads is in place. */
    final void start() {
        Thread.ofPlatform().daemon().name(name + "-accept").start(() -> {
            try {
                while (true) {
                    SocketChannel c = listener.accept();
                    c.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    Thread.ofPlatform().daemon().name(name + "-conn").start(() -> {
                        try (c) {
                            serve(c);
                        } catch (IOException e) {
                            // the client went away
                        }
                    });
                }
            } catch (IOException closed) {
                // the listener was closed: the measurement is over
            }
        });
    }

    /** Answers requests on {@code c} until the client closes it. */
    abstract void serve(SocketChannel c) throws IOException;

    int port() {
        return ((InetSocketAddress) listener.socket().getLocalSocketAddress()).getPort();
    }

    /**
     * Reads the next request head into {@code buf} (a heap buffer, cleared first) and returns the index just past its
     * blank line; bytes after it (the start of a body) stay in {@code buf} up to its position. -1 at end of stream.
     */
    static int readHead(SocketChannel c, ByteBuffer buf) throws IOException {
        buf.clear();
        while (true) {
            byte[] a = buf.array();
            for (int i = 3; i < buf.position(); i++) {
                if (a[i - 3] == '\r' && a[i - 2] == '\n' && a[i - 1] == '\r' && a[i] == '\n') return i + 1;
            }
            if (!buf.hasRemaining()) throw new IOException("request head over " + buf.capacity() + " bytes");
            if (c.read(buf) < 0) return -1;
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
    }
}
