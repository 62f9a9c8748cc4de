package org.openxet.cli;

import org.openxet.service.ServerConfig;

import java.time.Duration;

/** A duration given on the command line ({@code 90s}, {@code 30m}, {@code 1h}, {@code 7d} or ISO-8601). */
final class DurationOption {
    private DurationOption() {
    }

    /** {@code value} of option {@code flag}; an unreadable one is a one-line usage error naming {@code examples}. */
    static Duration parse(String flag, String value, String examples) {
        try {
            return ServerConfig.parseDuration(value);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(flag + " '" + value + "' is not a duration (e.g. " + examples + ")");
        }
    }
}
