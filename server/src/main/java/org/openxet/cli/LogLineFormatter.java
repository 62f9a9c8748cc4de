package org.openxet.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.logging.Formatter;
import java.util.logging.LogRecord;

/**
 * The server's log line: {@code 2026-11-30T20:09:25.911 INFO logger: message}, then the stack trace of a thrown
 * exception on the lines after it, the same text as {@code SimpleFormatter} with the format {@code logging.properties}
 * gives.
 *
 * <p>Why not {@code SimpleFormatter} (or Helidon's, which extends it): both ask every record for its source class,
 * which makes the record walk the logging thread's stack to find its caller, even though the format never prints
 * it. Every request writes an access-log line from the bottom of Helidon's stack: 8–17 µs a line from 20–80 frames
 * deep against under 0.5 µs for the whole line here (JMH {@code LogLineBench}; docs/BENCHMARKS.md, "Log lines").
 */
public final class LogLineFormatter extends Formatter {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS");

    @Override
    public String format(LogRecord record) {
        StringBuilder line = new StringBuilder(160);
        TIME.formatTo(record.getInstant().atZone(ZoneId.systemDefault()), line);
        line.append(' ').append(record.getLevel().getLocalizedName()).append(' ').append(record.getLoggerName())
                .append(": ").append(formatMessage(record));
        if (record.getThrown() != null) {
            StringWriter trace = new StringWriter();
            try (PrintWriter out = new PrintWriter(trace)) {
                out.println();
                record.getThrown().printStackTrace(out);
            }
            line.append(trace);
        }
        return line.append(System.lineSeparator()).toString();
    }
}
