package org.openxet.cli;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.LogRecord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Lines reach the stream whole and in order, a stuck stream never holds up the thread that logs, close loses none. */
class AsyncConsoleHandlerTest {
    private static LogRecord record(String message) {
        LogRecord r = new LogRecord(Level.INFO, message);
        r.setLoggerName("io.helidon.webserver.AccessLog.@default");
        r.setInstant(Instant.parse("2026-12-06T12:00:00Z"));
        return r;
    }

    private static String line(String message) {
        return new LogLineFormatter().format(record(message));
    }

    /** A stream that takes bytes only once {@link #open} is counted down. */
    private static final class StuckStream extends OutputStream {
        final CountDownLatch open = new CountDownLatch(1);
        final ByteArrayOutputStream taken = new ByteArrayOutputStream();

        @Override
        public synchronized void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            try {
                open.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            synchronized (this) {
                taken.write(b, off, len);
            }
        }

        synchronized String text() {
            return taken.toString(StandardCharsets.UTF_8);
        }
    }

    @Test
    void linesAreWrittenInOrderWithinTheLinger() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        AsyncConsoleHandler handler = new AsyncConsoleHandler(out, 100);
        try {
            StringBuilder expected = new StringBuilder();
            for (int i = 0; i < 50; i++) {
                handler.publish(record("GET /v2/reconstructions/" + i + " 200 1234 0.5ms"));
                expected.append(line("GET /v2/reconstructions/" + i + " 200 1234 0.5ms"));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (out.size() < expected.length() && System.nanoTime() < deadline) Thread.sleep(10);
            assertEquals(expected.toString(), out.toString(StandardCharsets.UTF_8));
        } finally {
            handler.close();
        }
    }

    @Test
    void aStreamThatTakesNothingNeverHoldsUpTheLoggerAndTheDropsAreCounted() throws Exception {
        StuckStream stuck = new StuckStream();
        AsyncConsoleHandler handler = new AsyncConsoleHandler(stuck, 4);
        // The writer takes the first line and blocks writing it; then four wait in the queue and the rest are dropped.
        handler.publish(record("first"));
        long taken = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (handler.queued() > 0 && System.nanoTime() < taken) Thread.sleep(5);
        long start = System.nanoTime();
        for (int i = 0; i < 1_000; i++) handler.publish(record("line " + i));
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(tookMillis < 1_000, "1,000 lines took " + tookMillis + " ms against a stuck stream");
        assertEquals(996, handler.dropped());

        stuck.open.countDown();
        String expected = line("first") + "WARNING org.openxet.cli.AsyncConsoleHandler: 996 log lines were dropped"
                + ": stdout was not read fast enough" + System.lineSeparator()
                + line("line 0") + line("line 1") + line("line 2") + line("line 3");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (stuck.text().length() < expected.length() && System.nanoTime() < deadline) Thread.sleep(10);
        handler.close();
        // The dropped-lines note carries the time it was written: compare the lines around its timestamp.
        String written = stuck.text();
        String note = written.substring(line("first").length(), written.indexOf(System.lineSeparator(),
                line("first").length()) + System.lineSeparator().length());
        assertTrue(note.endsWith("WARNING org.openxet.cli.AsyncConsoleHandler: 996 log lines were dropped: stdout was "
                + "not read fast enough" + System.lineSeparator()), note);
        assertEquals(line("first") + note + line("line 0") + line("line 1") + line("line 2") + line("line 3"), written);
        assertEquals(0, handler.dropped());
    }

    @Test
    void closeWritesEveryQueuedLineAtOnceAndLaterLinesDirectly() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        AsyncConsoleHandler handler = new AsyncConsoleHandler(out, 100);
        handler.publish(record("queued"));
        handler.close();
        assertEquals(line("queued"), out.toString(StandardCharsets.UTF_8));
        handler.publish(record("after close"));
        assertEquals(line("queued") + line("after close"), out.toString(StandardCharsets.UTF_8));
    }
}
