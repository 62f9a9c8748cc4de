package org.openxet.http;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A minimal HTTP/1.1 client over one keep-alive socket: writes a pre-built request head (and body), reads the status
 * and headers, then the body to its last byte (Content-Length or chunked), discarding it unless asked to keep it. The
 * server's own warm-up ({@link WarmUp}) and every gate that times the server use it.
 *
 * <p>Why not {@code java.net.http}: its responses cross a selector thread and arrive as lists of copied
 * {@code ByteBuffer}s, which adds a thread hand-off and a copy per buffer to every timing, and spends the CPU the
 * warm-up is there to give the server's own code. Here the calling thread reads the socket itself into one reused
 * buffer (256 KiB for a gate), so the time to the last byte is the server's time plus the loopback transfer and one
 * {@code read} per buffer. Not a general client: no redirects, no TLS, no pipelining.
 */
public final class RawHttp implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final byte[] buf;
    private int pos;
    private int lim;
    private boolean closed;

    /** What one exchange returned: status, body length, and when its first and last bytes arrived. */
    public record Response(int status, long bodyBytes, long sentNanos, long firstByteNanos, long lastByteNanos) {
        public double millis() {
            return (lastByteNanos - sentNanos) / 1e6;
        }

        public double firstByteMillis() {
            return (firstByteNanos - sentNanos) / 1e6;
        }
    }

    /**
     * A gate's connection: connect and each read may take up to 60 s (its largest answers under load), read through
     * a 256 KiB buffer from a 1 MiB socket receive buffer.
     */
    public RawHttp(String host, int port) throws IOException {
        this(host, port, 60_000, 256 * 1024, 1 << 20);
    }

    /**
     * A connection that gives up on a connect, or a read that receives nothing, after {@code timeoutMillis}, read
     * through a buffer of {@code bufferBytes}, with the kernel's own receive buffer sizing.
     */
    public RawHttp(String host, int port, int timeoutMillis, int bufferBytes) throws IOException {
        this(host, port, timeoutMillis, bufferBytes, 0);
    }

    private RawHttp(String host, int port, int timeoutMillis, int bufferBytes, int receiveBufferBytes)
            throws IOException {
        buf = new byte[bufferBytes];
        socket = new Socket();
        socket.setTcpNoDelay(true);
        // Before connecting: a receive buffer over 64 KiB needs window scaling, agreed in the handshake.
        if (receiveBufferBytes > 0) socket.setReceiveBufferSize(receiveBufferBytes);
        socket.connect(new InetSocketAddress(host, port), timeoutMillis);
        socket.setSoTimeout(timeoutMillis);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    /** The bytes of {@code GET path} with a bearer token (none when null) and an optional {@code Range} header. */
    public static byte[] get(String host, int port, String path, String token, String range) {
        return request("GET", host, port, path, token, range, -1);
    }

    /** The head of {@code POST path} with a bearer token and a Content-Length; the body follows it on the socket. */
    public static byte[] post(String host, int port, String path, String token, long contentLength) {
        return request("POST", host, port, path, token, null, contentLength);
    }

    /**
     * The head of {@code method path}: a bearer token and a {@code Range} when non-null, a Content-Length when not
     * negative.
     */
    public static byte[] request(String method, String host, int port, String path, String token, String range,
                               long contentLength) {
        StringBuilder s = new StringBuilder(512).append(method).append(' ').append(path).append(" HTTP/1.1\r\nHost: ")
                .append(host).append(':').append(port).append("\r\n");
        if (token != null) s.append("Authorization: Bearer ").append(token).append("\r\n");
        if (range != null) s.append("Range: ").append(range).append("\r\n");
        if (contentLength >= 0) s.append("Content-Length: ").append(contentLength).append("\r\n");
        return s.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII);
    }

    public boolean isOpen() {
        return !closed;
    }

    /** Sends {@code request} and reads the whole answer; the body is copied into {@code keep} when non-null. */
    public Response exchange(byte[] request, ByteArrayOutputStream keep) throws IOException {
        return exchange(request, null, keep);
    }

    /** Sends {@code head}, then {@code requestBody} when non-null, and reads the whole answer as {@link #exchange}. */
    public Response exchange(byte[] head, byte[] requestBody, ByteArrayOutputStream keep) throws IOException {
        long sent = System.nanoTime();
        out.write(head);
        if (requestBody != null) out.write(requestBody);
        out.flush();
        if (pos == lim) fill();
        long first = System.nanoTime();
        String status = line();
        if (!status.startsWith("HTTP/1.1 ") || status.length() < 12) {
            throw new IOException("bad status line: " + status);
        }
        int code = Integer.parseInt(status.substring(9, 12));
        long length = -1;
        boolean chunked = false;
        for (String h = line(); !h.isEmpty(); h = line()) {
            int colon = h.indexOf(':');
            if (colon < 0) continue;
            String name = h.substring(0, colon).trim();
            String value = h.substring(colon + 1).trim();
            if (name.equalsIgnoreCase("content-length")) {
                length = Long.parseLong(value);
            } else if (name.equalsIgnoreCase("transfer-encoding")) {
                chunked = value.toLowerCase(java.util.Locale.ROOT).contains("chunked");
            } else if (name.equalsIgnoreCase("connection") && value.equalsIgnoreCase("close")) {
                closed = true;
            }
        }
        long body = 0;
        if (code == 204 || code == 304 || startsWith(head, "HEAD ")) {
            // No body follows, whatever the headers say of it.
        } else if (chunked) {
            while (true) {
                String size = line();
                int semi = size.indexOf(';');
                long n = Long.parseLong((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
                if (n == 0) {
                    while (!line().isEmpty()) {
                        // trailers: none expected
                    }
                    break;
                }
                consume(n, keep);
                body += n;
                if (!line().isEmpty()) throw new IOException("chunk not followed by CRLF");
            }
        } else if (length >= 0) {
            consume(length, keep);
            body = length;
        } else {
            throw new IOException("answer has neither Content-Length nor chunked encoding");
        }
        return new Response(code, body, sent, first, System.nanoTime());
    }

    private static boolean startsWith(byte[] bytes, String ascii) {
        if (bytes.length < ascii.length()) return false;
        for (int i = 0; i < ascii.length(); i++) {
            if (bytes[i] != ascii.charAt(i)) return false;
        }
        return true;
    }

    private void fill() throws IOException {
        int r = in.read(buf, 0, buf.length);
        if (r < 0) {
            closed = true;
            throw new EOFException("server closed the connection");
        }
        pos = 0;
        lim = r;
    }

    private void consume(long n, ByteArrayOutputStream keep) throws IOException {
        while (n > 0) {
            if (pos == lim) {
                // Never read past this body: the next bytes on the socket belong to the next answer.
                int r = in.read(buf, 0, (int) Math.min(buf.length, n));
                if (r < 0) {
                    closed = true;
                    throw new EOFException("server closed the connection mid-body");
                }
                pos = 0;
                lim = r;
            }
            int take = (int) Math.min(n, lim - pos);
            if (keep != null) keep.write(buf, pos, take);
            pos += take;
            n -= take;
        }
    }

    private String line() throws IOException {
        StringBuilder s = new StringBuilder(64);
        while (true) {
            if (pos == lim) fill();
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
        closed = true;
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
