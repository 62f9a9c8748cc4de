package org.openxet.gates;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * The operating system's page cache, emptied as a reboot empties it ({@code --drop-caches}): a node that restarts
 * after a reboot finds its index on disk, not in memory, and a process restart measures only the JVM's share of that.
 * And how much of a set of files it holds ({@link #residentBytes}): the rig compares index sizes, which says nothing
 * when the larger index is read from disk.
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

    /**
     * How many bytes of {@code files} the page cache holds now, by util-linux's {@code fincore} (mincore(2) over each
     * file); empty when it cannot say (no fincore, an unreadable file).
     */
    static OptionalLong residentBytes(List<Path> files) {
        if (files.isEmpty()) return OptionalLong.empty();
        List<String> cmd = new ArrayList<>(List.of("fincore", "--bytes", "--noheadings", "--raw", "--output", "RES"));
        for (Path f : files) cmd.add(f.toString());
        try {
            Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            if (p.waitFor() != 0) return OptionalLong.empty();
            long sum = 0;
            int lines = 0;
            for (String line : out.split("\n")) {
                if (line.isBlank()) continue;
                sum += Long.parseLong(line.trim());
                lines++;
            }
            return lines == files.size() ? OptionalLong.of(sum) : OptionalLong.empty();
        } catch (IOException | NumberFormatException e) {
            return OptionalLong.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return OptionalLong.empty();
        }
    }

    /** Writes dirty pages out, then drops the clean ones, dentries and inodes. */
    static void drop() throws IOException, InterruptedException {
        Process sync = new ProcessBuilder("sync").inheritIO().start();
        if (sync.waitFor() != 0) throw new IOException("sync exited " + sync.exitValue());
        Files.writeString(DROP, "3");
    }
}
