package org.openxet.testing;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** Every log record published while it is open (root logger, so the server's loggers included). */
public final class LogCapture extends Handler implements AutoCloseable {
    private final List<LogRecord> records = Collections.synchronizedList(new ArrayList<>());
    private final Logger root = Logger.getLogger("");

    public LogCapture() {
        root.addHandler(this);
    }

    @Override
    public void publish(LogRecord r) {
        records.add(r);
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        root.removeHandler(this);
    }

    /** The messages so far, as they would be formatted (parameters filled in). */
    public List<String> messages() {
        synchronized (records) {
            return records.stream().map(r -> new java.util.logging.SimpleFormatter().formatMessage(r)).toList();
        }
    }

    /** The messages of loggers named {@code prefix}..., as {@link #messages()} gives them. */
    public List<String> messages(String prefix) {
        synchronized (records) {
            return records.stream().filter(r -> r.getLoggerName() != null && r.getLoggerName().startsWith(prefix))
                    .map(r -> new java.util.logging.SimpleFormatter().formatMessage(r)).toList();
        }
    }

    /** How many records of loggers named {@code prefix}... carry a throwable (a stack in the log). */
    public long withStacks(String prefix) {
        synchronized (records) {
            return records.stream().filter(r -> r.getThrown() != null && r.getLoggerName() != null
                    && r.getLoggerName().startsWith(prefix)).count();
        }
    }

    /** Messages of records at WARNING or above. */
    public List<String> warnings() {
        synchronized (records) {
            return records.stream().filter(r -> r.getLevel().intValue() >= Level.WARNING.intValue())
                    .map(r -> r.getLevel() + " " + r.getMessage()).toList();
        }
    }
}
