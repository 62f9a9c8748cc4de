package org.openxet.http;

import io.helidon.common.context.Context;
import io.helidon.webserver.ServerConnectionException;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;

/**
 * A response body of a known length written to the connection's {@link SocketChannel} from direct memory
 * ({@link ResponseChannel} says why). The first write goes through Helidon's response stream, which sends it with
 * the status line and headers; every later write is copied into a 1 MiB direct staging buffer, which goes to the
 * channel whenever it fills and when the stream is flushed or closed (so small writes, like a multipart body's part
 * heads, are gathered as Helidon's buffered stream gathered them), and the JDK copies nothing again, also when the
 * socket takes a write in parts.
 *
 * <p>Helidon does not see those bytes: the access log reads {@link #sentBytes(Context)} for them. A stream closed
 * before its whole length was written (a failure mid-answer) shuts the connection's output, so the client sees a cut
 * body and never waits on, or reads its next answer from, a connection that still owes bytes.
 */
final class ChannelBodyStream extends OutputStream implements WritableByteChannel {
    /** Smaller bodies go through Helidon's stream alone: their first write is most or all of them. */
    static final long MIN_BODY = 256 * 1024;
    static final int STAGE_BYTES = 1024 * 1024;
    /** Staging buffers kept between answers: 16 MiB of native memory at most; more concurrent answers allocate. */
    static final int POOLED = 16;
    private static final BufferPool<ByteBuffer> STAGES = new BufferPool<>(POOLED,
            () -> ByteBuffer.allocateDirect(STAGE_BYTES));

    /** The body bytes a request sent this way, for the access log. */
    record Sent(long bytes) {
    }

    private final OutputStream helidon;
    private final SocketChannel channel;
    private final long length;
    private final Context requestContext;
    /** Bytes accepted (written through Helidon, sent, or staged) and bytes on their way to the client. */
    private long written;
    private long sent;
    private boolean headersSent;
    private boolean closed;
    private ByteBuffer stage;
    /** Set when every pooled buffer was in use: this stream's own, freed when it closes (same thread: the handler's). */
    private Arena ownStage;

    ChannelBodyStream(OutputStream helidon, SocketChannel channel, long length, Context requestContext) {
        this.helidon = helidon;
        this.channel = channel;
        this.length = length;
        this.requestContext = requestContext;
    }

    /** What a request's body sent through its channel, when it was sent so; -1 otherwise. */
    static long sentBytes(Context requestContext) {
        return requestContext.get(Sent.class, Sent.class).map(Sent::bytes).orElse(-1L);
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[]{(byte) b}, 0, 1);
    }

    /** Refuses a write to a closed stream or past the Content-Length. */
    private void admit(long len) throws IOException {
        if (closed) {
            throw new IOException("response body already closed");
        }
        if (len > length - written) {
            throw new IOException("Content-Length is " + length + ", but " + (written + len) + " bytes were written");
        }
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        admit(len);
        if (!headersSent) {
            helidon.write(b, off, len);
            helidon.flush();
            headersSent = true;
            written += len;
            sent = written;
            return;
        }
        while (len > 0) {
            ByteBuffer s = stage();
            int n = Math.min(len, s.remaining());
            s.put(b, off, n);
            off += n;
            len -= n;
            written += n;
            if (!s.hasRemaining()) {
                drain();
            }
        }
    }

    /** Writes what the staging buffer holds to the channel, all of it. */
    private void drain() throws IOException {
        if (stage == null || stage.position() == 0) {
            return;
        }
        stage.flip();
        toClient(stage);
        stage.clear();
        sent = written;
    }

    /**
     * Bytes already in native memory (rendered terms, a mapped range of an object), written to the channel as they
     * are, all of them (a blocking channel). As a body's first write, its first 64 KiB are copied and go through Helidon
     * with the headers.
     */
    @Override
    public int write(ByteBuffer direct) throws IOException {
        int all = direct.remaining();
        admit(all);
        if (!headersSent && all > 0) {
            byte[] first = new byte[Math.min(all, AnswerWriter.FIRST_WRITE)];
            direct.get(first);
            write(first, 0, first.length);
        }
        int len = direct.remaining();
        drain();
        toClient(direct);
        written += len;
        sent = written;
        return all;
    }

    /**
     * Writes all of {@code b} to the client's socket. A failure there is the connection ending under the answer (a
     * reset, or {@code send.timeout} for a client that stopped reading): reported as Helidon reports its own, so
     * {@link Errors} logs a client gone (one INFO line, 499), not a server failure with its stack.
     */
    private void toClient(ByteBuffer b) {
        try {
            while (b.hasRemaining()) {
                channel.write(b);
            }
        } catch (IOException e) {
            throw new ServerConnectionException("the connection failed while the answer was written", e);
        }
    }

    @Override
    public boolean isOpen() {
        return !closed;
    }

    @Override
    public void flush() throws IOException {
        if (!headersSent) {
            helidon.flush();
        } else {
            drain();
        }
    }

    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            drain();
        } finally {
            releaseStage();
            requestContext.register(Sent.class, new Sent(sent));
            if (sent < length) {
                try {
                    channel.shutdownOutput();
                } catch (IOException e) {
                    // The connection is already broken: what failed the body is the error worth reporting.
                }
            }
            helidon.close();
        }
    }

    private ByteBuffer stage() {
        if (stage == null) {
            stage = STAGES.take();
            if (stage == null) {
                ownStage = Arena.ofConfined();
                stage = ownStage.allocate(STAGE_BYTES).asByteBuffer();
            }
            stage.clear();
        }
        return stage;
    }

    private void releaseStage() {
        if (stage == null) {
            return;
        }
        if (ownStage != null) {
            // Freed now, not whenever the collector gets to it.
            ownStage.close();
            ownStage = null;
        } else {
            STAGES.give(stage);
        }
        stage = null;
    }
}
