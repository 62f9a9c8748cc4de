package org.openxet.cli;

import picocli.CommandLine.Option;

/** {@code --deep} and {@code --rate}: how fsck (and repair, through it) looks at the objects (a picocli mixin). */
final class ScrubOptions {
    @Option(names = "--deep", description = "Read and validate every object too (a scrub), not only their sizes.")
    boolean deep;

    @Option(names = "--rate", paramLabel = "MB/s", description = "With --deep, read at most this many MB (10^6 bytes) "
            + "a second (default 100; 0 = as fast as the storage goes).")
    double rate = 100;

    long bytesPerSecond() {
        if (rate < 0) throw new IllegalArgumentException("--rate must not be negative");
        return (long) (rate * 1_000_000);
    }
}
