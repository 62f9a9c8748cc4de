package org.openxet.bench;

import java.util.concurrent.TimeUnit;
import java.util.logging.Formatter;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.SimpleFormatter;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openxet.cli.LogLineFormatter;

/**
 * One access-log line formatted {@code depth} frames below the benchmark, as Helidon logs it from the bottom of a
 * request's stack: {@code SimpleFormatter} with the server's format (it asks the record for its caller, a stack walk)
 * against the server's {@link LogLineFormatter} (the same text, no walk). Microseconds per line.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class LogLineBench {
    @Param({"20", "80"})
    public int depth;

    private Formatter simple;
    private Formatter line;

    @Setup
    public void setup() {
        System.setProperty("java.util.logging.SimpleFormatter.format",
                "%1$tY-%1$tm-%1$tdT%1$tH:%1$tM:%1$tS.%1$tL %4$s %3$s: %5$s%6$s%n");
        simple = new SimpleFormatter();
        line = new LogLineFormatter();
    }

    @Benchmark
    public String simpleFormatter() {
        return at(depth, simple);
    }

    @Benchmark
    public String logLineFormatter() {
        return at(depth, line);
    }

    private static String at(int depth, Formatter f) {
        if (depth > 0) return at(depth - 1, f);
        LogRecord r = new LogRecord(Level.INFO,
                "GET /v2/reconstructions/4f0c6e2a9b1d8e7f3a5c2b1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f 200 13617049 4.512ms");
        r.setLoggerName("io.helidon.webserver.AccessLog.@default");
        return f.format(r);
    }
}
