package org.openxet.gates;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time of processes on this machine from {@code /proc} (Linux; 0 elsewhere), in clock ticks (USER_HZ, 100): a
 * rig step's CPU split between the server, the load generator and a local PostgreSQL, which share the two cores.
 */
final class ProcessCpu {
    /** Clock ticks a second ({@code USER_HZ}), 100 on every Linux this runs on. */
    static final double TICKS_PER_SECOND = 100.0;

    private ProcessCpu() {
    }

    /** utime + stime of process {@code pid}. */
    static long ticks(long pid) {
        try {
            return ticks(Files.readString(Path.of("/proc/" + pid + "/stat")));
        } catch (IOException | RuntimeException e) {
            return 0; // gone, or not Linux
        }
    }

    /**
     * utime + stime of every process whose command name is {@code command} ({@code /proc/PID/comm}, e.g. "postgres":
     * the postmaster and each backend). A process that exits between two readings takes its ticks with it, so a
     * difference undercounts work done by processes that ended; the rig's pooled connections live through a step.
     */
    static long ticksOf(String command) {
        long sum = 0;
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), p -> isNumber(p.getFileName().toString()))) {
            for (Path p : procs) {
                try {
                    String stat = Files.readString(p.resolve("stat"));
                    if (command.equals(stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')')))) sum += ticks(stat);
                } catch (IOException | RuntimeException gone) {
                    // the process ended while the directory was read
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        return sum;
    }

    /** Fields 14 and 15 of a {@code /proc/PID/stat} line, counted after the command name (which may hold spaces). */
    static long ticks(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    private static boolean isNumber(String s) {
        return !s.isEmpty() && s.chars().allMatch(Character::isDigit);
    }
}
