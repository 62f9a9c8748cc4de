package org.openxet.gates;

import java.io.IOException;
import java.nio.ByteBuffer;
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
final class OffHeapBodyServer extends PlainLoopbackServer {
    private final Map<String, ByteBuffer> bodies = new HashMap<>();
    private final Map<String, ByteBuffer> heads = new HashMap<>();

    OffHeapBodyServer(Map<String, Long> sizes) throws IOException {
        super("offheap-floor");
        for (var e : sizes.entrySet()) {
            int n = (int) (long) e.getValue();
            ByteBuffer body = ByteBuffer.allocateDirect(n);
            while (body.hasRemaining()) body.put((byte) 'x');
            bodies.put("/floor/" + e.getKey(), body.flip());
            byte[] head = ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + n + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII);
            heads.put("/floor/" + e.getKey(), ByteBuffer.allocateDirect(head.length).put(head).flip());
        }
        start();
    }

    @Override
    void serve(SocketChannel c) throws IOException {
        ByteBuffer in = ByteBuffer.allocate(8192);
        for (int end; (end = readHead(c, in)) >= 0; ) {
            String text = new String(in.array(), 0, end, StandardCharsets.US_ASCII);
            int sp = text.indexOf(' ');
            String path = text.substring(sp + 1, text.indexOf(' ', sp + 1));
            ByteBuffer body = bodies.get(path);
            if (body == null) throw new IOException("no floor body at " + path);
            ByteBuffer[] answer = {heads.get(path).duplicate(), body.duplicate()};
            while (answer[1].hasRemaining()) c.write(answer);
        }
    }
}
