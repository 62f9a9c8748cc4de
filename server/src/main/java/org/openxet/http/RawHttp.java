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
 * warm-up is there to give the server's own code. Here the calling thread reads the socket itself, so the time to the
 * last byte is the server's time plus the loopback transfer and one {@code read} per 256 KiB (a gate's reads).
 *
 * <p>A connection's own buffer holds only the status line and headers (16 KiB). A body nobody keeps is read into
 * {@link #DISCARD}, one array every connection shares, since no one reads those bytes back. An open-loop generator
 * that falls behind opens a connection per request in flight. With 256 KiB of its own each, the restart gate's
 * backlog after a start (about 1,200 new connections in its first 3 s) grew the generator's live heap by 300 MB,
 * which its young collector copied in pauses of 355–462 ms on the two cores the server was starting on
 * (docs/BENCHMARKS.md, "Restart under load"). Not a general client: no redirects, no TLS, no pipelining.
 */
public final class RawHttp implements AutoCloseable {
    /** Where the body bytes no one keeps are read to, by every connection at once: nothing reads them back. */
    private static final byte[] DISCARD = new byte[256 * 1024];
    /** A connection's own buffer: the status line, the headers, and whatever the first read brought of the body. */
    private static final int HEAD_BUFFER_BYTES = 16 * 1024;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final byte[] buf;
    /** The most one read of a body asks for. */
    private final int readBytes;
    /** For bodies the caller keeps, made at the first of them: most connections never keep one. */
    private byte[] keepBuf;
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
     * A gate's connection: connect and each read may take up to 60 s (its largest answers under load), bodies read
     * 256 KiB at a time from a 1 MiB socket receive buffer.
     */
    public RawHttp(String host, int port) throws IOException {
        this(host, port, 60_000, 256 * 1024, 1 << 20);
    }

    /**
     * A connection that gives up on a connect, or a read that receives nothing, after {@code timeoutMillis}, and reads
     * a body at most {@code readBytes} (up to 256 KiB) at a time, with the kernel's own receive buffer sizing.
     */
    public RawHttp(String host, int port, int timeoutMillis, int readBytes) throws IOException {
        this(host, port, timeoutMillis, readBytes, 0);
    }

    private RawHttp(String host, int port, int timeoutMillis, int readBytes, int receiveBufferBytes)
            throws IOException {
        this.readBytes = Math.min(readBytes, DISCARD.length);
        buf = new byte[Math.min(HEAD_BUFFER_BYTES, this.readBytes)];
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
        // First what the header reads brought of the body.
        int buffered = (int) Math.min(n, lim - pos);
        if (keep != null) keep.write(buf, pos, buffered);
        pos += buffered;
        n -= buffered;
        if (n == 0) return;
        byte[] into = keep == null ? DISCARD : keepBuffer();
        while (n > 0) {
            // Never read past this body: the next bytes on the socket belong to the next answer.
            int r = in.read(into, 0, (int) Math.min(readBytes, n));
            if (r < 0) {
                closed = true;
                throw new EOFException("server closed the connection mid-body");
            }
            if (keep != null) keep.write(into, 0, r);
            n -= r;
        }
    }

    private byte[] keepBuffer() {
        if (keepBuf == null) keepBuf = new byte[readBytes];
        return keepBuf;
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
