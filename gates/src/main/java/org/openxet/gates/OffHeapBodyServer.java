package org.openxet.gates;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * The transfer floor without Helidon: a plain {@code SocketChannel} server that answers {@code GET /floor/NAME} with
 * ready-made bytes held off-heap, in one gathering write per answer, TCP_NODELAY on. It is the comparison for the
 * floor route: any socket write from a Java {@code byte[]} (Helidon's blocking sockets write through
 * {@code Socket.getOutputStream()}, its NIO sockets through an 8 KiB heap staging buffer) is first copied into a
 * direct buffer by the JDK, and this server is the same transfer without that copy. Not an HTTP server: it reads a
 * request up to its blank line, ignores everything but the path, and keeps the connection open.
 */
final class OffHeapBodyServer implements AutoCloseable {
    private final ServerSocketChannel listener;
    private final Map<String, ByteBuffer> bodies = new HashMap<>();
    private final Map<String, ByteBuffer> heads = new HashMap<>();
    private final Thread acceptor;

    OffHeapBodyServer(Map<String, Long> sizes) throws IOException {
        for (var e : sizes.entrySet()) {
            int n = (int) (long) e.getValue();
            ByteBuffer body = ByteBuffer.allocateDirect(n);
            while (body.hasRemaining()) body.put((byte) 'x');
            bodies.put("/floor/" + e.getKey(), body.flip());
            byte[] head = ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + n + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII);
            heads.put("/floor/" + e.getKey(), ByteBuffer.allocateDirect(head.length).put(head).flip());
        }
        listener = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        acceptor = Thread.ofPlatform().daemon().name("offheap-floor-accept").start(this::accept);
    }

    int port() {
        return ((InetSocketAddress) listener.socket().getLocalSocketAddress()).getPort();
    }

    private void accept() {
        try {
            while (true) {
                SocketChannel c = listener.accept();
                c.setOption(StandardSocketOptions.TCP_NODELAY, true);
                Thread.ofPlatform().daemon().name("offheap-floor-conn").start(() -> serve(c));
            }
        } catch (IOException closed) {
            // the listener was closed: the floor measurement is over
        }
    }

    private void serve(SocketChannel c) {
        ByteBuffer in = ByteBuffer.allocate(8192);
        try (c) {
            while (true) {
                String path = readRequestPath(c, in);
                if (path == null) return;
                ByteBuffer body = bodies.get(path);
                if (body == null) throw new IOException("no floor body at " + path);
                ByteBuffer[] answer = {heads.get(path).duplicate(), body.duplicate()};
                while (answer[1].hasRemaining()) c.write(answer);
            }
        } catch (IOException e) {
            // the client went away
        }
    }

    /** The path of the next request on {@code c}, or null at end of stream; consumes the request's header block. */
    private static String readRequestPath(SocketChannel c, ByteBuffer in) throws IOException {
        in.clear();
        while (true) {
            if (c.read(in) < 0) return null;
            String text = new String(in.array(), 0, in.position(), StandardCharsets.US_ASCII);
            if (text.contains("\r\n\r\n")) {
                int sp = text.indexOf(' ');
                return text.substring(sp + 1, text.indexOf(' ', sp + 1));
            }
            if (!in.hasRemaining()) throw new IOException("request head over " + in.capacity() + " bytes");
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        acceptor.interrupt();
    }
}
