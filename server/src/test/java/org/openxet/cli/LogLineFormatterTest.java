package org.openxet.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.logging.Formatter;
import java.util.logging.Level;
import java.util.logging.LogRecord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The line SimpleFormatter printed with logging.properties' format, without asking the record for its caller. */
class LogLineFormatterTest {
    /** logging.properties' {@code java.util.logging.SimpleFormatter.format}. */
    private static final String FORMAT = "%1$tY-%1$tm-%1$tdT%1$tH:%1$tM:%1$tS.%1$tL %4$s %3$s: %5$s%6$s%n";

    /** A record that fails the test if its caller is asked for: that is the stack walk this formatter avoids. */
    private static LogRecord record(Level level, String message, Object... params) {
        LogRecord r = new LogRecord(level, message) {
            @Override
            public String getSourceClassName() {
                throw new AssertionError("the formatter asked for the caller");
            }
        };
        r.setLoggerName("io.helidon.webserver.AccessLog.@default");
        r.setInstant(Instant.parse("2026-11-30T20:09:25.911123Z"));
        r.setParameters(params.length == 0 ? null : params);
        return r;
    }

    private static String simple(LogRecord r, Formatter messages, String thrown) {
        return String.format(FORMAT, ZonedDateTime.ofInstant(r.getInstant(), ZoneId.systemDefault()), null,
                r.getLoggerName(), r.getLevel().getLocalizedName(), messages.formatMessage(r), thrown);
    }

    @Test
    void printsWhatSimpleFormatterPrintedWithTheServersFormat() {
        LogLineFormatter f = new LogLineFormatter();
        LogRecord access = record(Level.INFO, "GET /health 200 147 18.355ms");
        assertEquals(simple(access, f, ""), f.format(access));
        LogRecord params = record(Level.WARNING, "index unreachable: {0} ({1} ms)", "refused", 12);
        assertEquals(simple(params, f, ""), f.format(params));
        assertEquals(ZonedDateTime.ofInstant(access.getInstant(), ZoneId.systemDefault())
                .format(java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS"))
                + " INFO io.helidon.webserver.AccessLog.@default: GET /health 200 147 18.355ms" + System.lineSeparator(),
                f.format(access));
        LogRecord failed = record(Level.SEVERE, "answer failed");
        IOException e = new IOException("connection reset");
        failed.setThrown(e);
        java.io.StringWriter trace = new java.io.StringWriter();
        try (java.io.PrintWriter out = new java.io.PrintWriter(trace)) {
            out.println();
            e.printStackTrace(out);
        }
        assertEquals(simple(failed, f, trace.toString()), f.format(failed));
        // What it replaces does ask for the caller.
        assertThrows(AssertionError.class, () -> new java.util.logging.SimpleFormatter().format(access));
    }

    @Test
    void theServersLoggingPropertiesSelectIt() throws Exception {
        // What openxet serve's console handler is configured with (LogConfig reads the same file from the classpath).
        try (var in = LogLineFormatterTest.class.getResourceAsStream("/logging.properties")) {
            java.util.logging.LogManager.getLogManager().readConfiguration(in);
        }
        var logging = java.util.logging.LogManager.getLogManager();
        assertEquals(AsyncConsoleHandler.class.getName(), logging.getProperty("handlers"));
        var handler = new AsyncConsoleHandler();
        try {
            assertEquals(LogLineFormatter.class, handler.getFormatter().getClass());
        } finally {
            handler.close();
        }
    }
}
