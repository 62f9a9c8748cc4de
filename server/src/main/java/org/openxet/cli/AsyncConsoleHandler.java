package org.openxet.cli;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.OutputStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.ErrorManager;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;

/**
 * The log's handler (logging.properties): formats each record on the thread that logs it, queues the line, and one
 * daemon thread writes what has queued every {@link #LINGER_MILLIS} to stdout.
 *
 * <p>Why not a console handler that writes each record itself: a reader of stdout that stops reading (a full pipe, a
 * stuck log shipper) stopped every request at its access-log line. And a write to stdout from a virtual thread is a
 * blocking call, for which the JDK wakes a spare carrier thread to stand in (a futex call each way) before the
 * write's own system call; at 1,000 requests/s the writes took about 3 % of the server's CPU samples in the release
 * rig (docs/BENCHMARKS.md, "Per-request overhead"). Here a request never waits for stdout: when
 * {@link #CAPACITY} lines wait unwritten, further lines are dropped and counted, and the count is logged once
 * stdout takes lines again. The writer sleeps between batches rather than waiting on the queue, so a logged line
 * wakes no thread.
 *
 * <p>Lines are lost only with the process: at most the last {@link #LINGER_MILLIS} of them on {@code kill -9};
 * {@link #close} (the JDK's shutdown of logging) writes every queued line first, and a line logged after it is
 * written at once.
 */
public final class AsyncConsoleHandler extends Handler {
    /** Most lines waiting to be written: about 3 MB of access-log lines, 16 s of them at 1,000 requests/s. */
    static final int CAPACITY = 16_384;
    /** How long a line may wait before it is written. */
    static final long LINGER_MILLIS = 50;
    /** How long closing (the JVM's shutdown) waits for a stdout that takes no bytes before it leaves the lines. */
    static final long CLOSE_WAIT_MILLIS = 1_000;

    private final BlockingQueue<String> lines;
    private final Writer out;
    /** Held while a batch is written; a close waits for it at most {@link #CLOSE_WAIT_MILLIS}. */
    private final ReentrantLock writing = new ReentrantLock();
    private final AtomicLong dropped = new AtomicLong();
    private volatile boolean closed;

    /**
     * The handler logging.properties names: stdout, its formatter from {@code <this class>.formatter} and its capacity
     * in lines from {@code <this class>.capacity} (default {@link #CAPACITY}).
     */
    public AsyncConsoleHandler() {
        this(System.out, configuredCapacity());
        setFormatter(configuredFormatter());
    }

    private static int configuredCapacity() {
        String value = LogManager.getLogManager().getProperty(AsyncConsoleHandler.class.getName() + ".capacity");
        try {
            return value == null ? CAPACITY : Math.max(1, Integer.parseInt(value.trim()));
        } catch (NumberFormatException e) {
            return CAPACITY;
        }
    }

    /** The same handler writing to {@code stream} (the gates' in-process servers log to a file as serve does). */
    public static AsyncConsoleHandler writingTo(OutputStream stream) {
        return new AsyncConsoleHandler(stream, CAPACITY);
    }

    AsyncConsoleHandler(OutputStream stream, int capacity) {
        this.lines = new ArrayBlockingQueue<>(capacity);
        this.out = new BufferedWriter(new OutputStreamWriter(stream, StandardCharsets.UTF_8), 64 * 1024);
        setFormatter(new LogLineFormatter());
        Thread writer = new Thread(this::writeLoop, "openxet-log");
        writer.setDaemon(true);
        writer.start();
    }

    private Formatter configuredFormatter() {
        String name = LogManager.getLogManager().getProperty(AsyncConsoleHandler.class.getName() + ".formatter");
        if (name == null) return new LogLineFormatter();
        try {
            Class<?> type = ClassLoader.getSystemClassLoader().loadClass(name);
            return (Formatter) type.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | ClassCastException e) {
            reportError("cannot use the log formatter " + name + "; using LogLineFormatter", e,
                    ErrorManager.OPEN_FAILURE);
            return new LogLineFormatter();
        }
    }

    @Override
    public void publish(LogRecord record) {
        if (!isLoggable(record)) return;
        String line;
        try {
            line = getFormatter().format(record);
        } catch (RuntimeException e) {
            reportError(null, e, ErrorManager.FORMAT_FAILURE);
            return;
        }
        if (closed) {
            writeNow(List.of(line));
        } else if (!lines.offer(line)) {
            dropped.incrementAndGet();
        }
    }

    /** Lines waiting to be written, for tests. */
    int queued() {
        return lines.size();
    }

    /** Lines dropped since the last report, for tests. */
    long dropped() {
        return dropped.get();
    }

    private void writeLoop() {
        List<String> batch = new ArrayList<>();
        while (!closed) {
            try {
                TimeUnit.MILLISECONDS.sleep(LINGER_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            writing.lock();
            try {
                if (closed) return;
                lines.drainTo(batch);
                write(batch);
                batch.clear();
            } finally {
                writing.unlock();
            }
        }
    }

    /** Writes {@code batch}, after a line counting the lines dropped since the last write, and flushes. */
    private void write(List<String> batch) {
        if (batch.isEmpty() && dropped.get() == 0) return;
        try {
            long lost = dropped.getAndSet(0);
            if (lost > 0) {
                LogRecord note = new LogRecord(Level.WARNING,
                        lost + " log lines were dropped: stdout was not read fast enough");
                note.setLoggerName(AsyncConsoleHandler.class.getName());
                out.write(getFormatter().format(note));
            }
            for (String line : batch) out.write(line);
            out.flush();
        } catch (IOException | RuntimeException e) {
            reportError(null, e, ErrorManager.WRITE_FAILURE);
        }
    }

    /** Writes what has queued so far (waiting for a batch being written at most {@link #CLOSE_WAIT_MILLIS}). */
    @Override
    public void flush() {
        List<String> batch = new ArrayList<>();
        lines.drainTo(batch);
        writeNow(batch);
    }

    private void writeNow(List<String> batch) {
        try {
            if (!writing.tryLock(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS)) return; // stdout is stuck
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        try {
            write(batch);
        } finally {
            writing.unlock();
        }
    }

    @Override
    public void close() {
        closed = true;
        flush();
    }
}
