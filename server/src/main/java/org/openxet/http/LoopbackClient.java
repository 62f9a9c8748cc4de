package org.openxet.http;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The warm-up's HTTP/1.1 client ({@link WarmUp}): one kept-alive loopback socket, a request head written whole, the
 * answer read to its last byte (Content-Length or chunked) and kept only when asked. Plain sockets rather than
 * {@code java.net.http}, whose selector thread and buffer copies would spend the CPU the warm-up is there to give the
 * server's own code, and whose classes a serving node never needs otherwise.
 */
final class LoopbackClient implements AutoCloseable {
    /** A request that has not answered within this long ends the warm-up's use of the connection. */
    private static final int READ_TIMEOUT_MS = 5_000;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final byte[] buf = new byte[64 * 1024];
    private final String host;
    private int pos;
    private int lim;
    private boolean open = true;

    LoopbackClient(int port) throws IOException {
        socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), READ_TIMEOUT_MS);
        socket.setSoTimeout(READ_TIMEOUT_MS);
        in = socket.getInputStream();
        out = socket.getOutputStream();
        host = "127.0.0.1:" + port;
    }

    boolean isOpen() {
        return open;
    }

    /** Sends {@code method path} with an optional bearer token and header; the status, the body copied into {@code keep}. */
    int exchange(String method, String path, String token, String header, String value, ByteArrayOutputStream keep)
            throws IOException {
        StringBuilder head = new StringBuilder(256).append(method).append(' ').append(path).append(" HTTP/1.1\r\nHost: ")
                .append(host).append("\r\n");
        if (token != null) head.append("Authorization: Bearer ").append(token).append("\r\n");
        if (header != null) head.append(header).append(": ").append(value).append("\r\n");
        out.write(head.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII));
        out.flush();
        String status = line();
        if (!status.startsWith("HTTP/1.1 ") || status.length() < 12) throw new IOException("bad status line");
        int code = Integer.parseInt(status.substring(9, 12));
        long length = -1;
        boolean chunked = false;
        for (String h = line(); !h.isEmpty(); h = line()) {
            int colon = h.indexOf(':');
            if (colon < 0) continue;
            String name = h.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String v = h.substring(colon + 1).trim();
            switch (name) {
                case "content-length" -> length = Long.parseLong(v);
                case "transfer-encoding" -> chunked = v.toLowerCase(Locale.ROOT).contains("chunked");
                case "connection" -> open &= !v.equalsIgnoreCase("close");
                default -> { }
            }
        }
        if (method.equals("HEAD") || code == 204 || code == 304) return code;
        if (chunked) {
            for (long n; (n = Long.parseLong(stripExtension(line()), 16)) > 0; line()) consume(n, keep);
            while (!line().isEmpty()) {
                // trailers
            }
        } else if (length >= 0) {
            consume(length, keep);
        } else {
            throw new IOException("an answer without a length");
        }
        return code;
    }

    private static String stripExtension(String size) {
        int semi = size.indexOf(';');
        return (semi < 0 ? size : size.substring(0, semi)).trim();
    }

    private void consume(long n, ByteArrayOutputStream keep) throws IOException {
        while (n > 0) {
            if (pos == lim) fill((int) Math.min(buf.length, n));
            int take = (int) Math.min(n, lim - pos);
            if (keep != null) keep.write(buf, pos, take);
            pos += take;
            n -= take;
        }
    }

    private void fill(int most) throws IOException {
        int r = in.read(buf, 0, most);
        if (r < 0) {
            open = false;
            throw new EOFException("the server closed the connection");
        }
        pos = 0;
        lim = r;
    }

    private String line() throws IOException {
        StringBuilder s = new StringBuilder(64);
        while (true) {
            if (pos == lim) fill(buf.length);
            byte b = buf[pos++];
            if (b == '\n') {
                int len = s.length();
                if (len > 0 && s.charAt(len - 1) == '\r') s.setLength(len - 1);
                return s.toString();
            }
            s.append((char) b);
        }
    }

    @Override
    public void close() {
        open = false;
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
