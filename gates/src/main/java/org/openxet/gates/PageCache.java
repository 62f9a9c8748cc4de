package org.openxet.gates;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The operating system's page cache, emptied as a reboot empties it ({@code --drop-caches}): a node that restarts
 * after a reboot finds its index on disk, not in memory, and a process restart measures only the JVM's share of that.
 */
final class PageCache {
    private static final Path DROP = Path.of("/proc/sys/vm/drop_caches");

    private PageCache() {
    }

    /** Refuses before any work when this process may not empty the cache. */
    static void checkAllowed() {
        if (!Files.isWritable(DROP)) {
            throw new IllegalArgumentException("--drop-caches writes " + DROP + ", which this user may not (run as root,"
                    + " e.g. with sudo on a CI runner)");
        }
    }

    /** Writes dirty pages out, then drops the clean ones, dentries and inodes. */
    static void drop() throws IOException, InterruptedException {
        Process sync = new ProcessBuilder("sync").inheritIO().start();
        if (sync.waitFor() != 0) throw new IOException("sync exited " + sync.exitValue());
        Files.writeString(DROP, "3");
    }
}
