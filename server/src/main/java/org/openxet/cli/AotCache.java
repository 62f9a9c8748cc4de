package org.openxet.cli;

import java.lang.management.ManagementFactory;
import java.util.Optional;

/**
 * Whether this JVM started from the AOT cache the launcher gave it ({@code -XX:AOTCache}, scripts/env.sh). The launcher
 * silences the JVM's own AOT messages (several lines, some at error level, for a cache it cannot map), so a cache the
 * JVM refused (other JVM options, another JDK) is said here, once, and the server starts without it.
 */
final class AotCache {
    private AotCache() {
    }

    /** The cache this JVM was given, or empty. */
    static Optional<String> given() {
        return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("-XX:AOTCache=")).map(a -> a.substring("-XX:AOTCache=".length())).reduce((a, b) -> b);
    }

    /** A JVM that mapped its cache (or the JDK's default class archive) says "sharing" in {@code java.vm.info}. */
    static boolean mapped() {
        return System.getProperty("java.vm.info", "").contains("sharing");
    }

    /** The start-up line about the cache: used, refused (one line, never an error), or none. */
    static String describe() {
        Optional<String> file = given();
        if (file.isEmpty()) return "no AOT cache (the first seconds run on a cold JVM)";
        if (mapped()) return "started from the AOT cache " + file.get();
        return "the AOT cache " + file.get() + " could not be used (made with other JVM options or another JDK);"
                + " started without it, the first seconds are slower";
    }
}
