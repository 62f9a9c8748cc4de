package org.openxet.gates;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * How much of this guest's CPU time the hypervisor gave to others: the {@code steal} column of {@code /proc/stat}'s
 * {@code cpu} line, as a share of all its columns between two samples. It is one way a shared host's load shows in a
 * guest: on the AMD VM, sampled every half second through a rig run, it was 0–1 % in most samples and 14–25 % in a
 * few. It is not the only way: in ten minutes when the same runs were a third slower than in the minutes after, a
 * rig step's steal was 0–9 %, and the cold stage's slowest asks mostly had none (docs/BENCHMARKS-HISTORY.md, "Host
 * steal beside the slow asks"). Bare metal and most containers show 0; where there is no {@code /proc/stat} (not
 * Linux) the share is unknown and says so.
 */
final class HostSteal {
    private static final Path PROC_STAT = Path.of("/proc/stat");

    private HostSteal() {
    }

    /** The guest's CPU time so far, in clock ticks: stolen, and in all (user to steal; guest time is in user). */
    record Sample(long steal, long total) {
        static final Sample UNKNOWN = new Sample(-1, -1);

        /** Now, or {@link #UNKNOWN} where there is no {@code /proc/stat}. */
        static Sample now() {
            try (var lines = Files.lines(PROC_STAT)) {
                return lines.findFirst().map(Sample::parse).orElse(UNKNOWN);
            } catch (Exception e) {
                return UNKNOWN;
            }
        }

        /** {@code /proc/stat}'s first line: {@code cpu user nice system idle iowait irq softirq steal [guest ...]}. */
        static Sample parse(String cpuLine) {
            String[] f = cpuLine.trim().split("\\s+");
            if (!f[0].equals("cpu") || f.length < 9) return UNKNOWN;
            long total = 0;
            for (int i = 1; i <= 8; i++) total += Long.parseLong(f[i]);
            return new Sample(Long.parseLong(f[8]), total);
        }

        boolean known() {
            return total >= 0;
        }
    }

    /** Stolen time over all time from {@code from} to {@code to}: NaN when unknown or when no tick passed. */
    static double share(Sample from, Sample to) {
        if (!from.known() || !to.known() || to.total() <= from.total()) return Double.NaN;
        return (double) (to.steal() - from.steal()) / (to.total() - from.total());
    }

    /**
     * The share during each ask of a one-at-a-time stage, so that its slowest tenth can be set beside the rest: if the
     * host took more from the guest during the slow asks, their slowness was at least partly the host's.
     */
    static final class PerAsk {
        private final Sample[] before;
        private final Sample[] after;

        PerAsk(int asks) {
            before = new Sample[asks];
            after = new Sample[asks];
        }

        void begin(int ask) {
            before[ask] = Sample.now();
        }

        void end(int ask) {
            after[ask] = Sample.now();
        }

        /** The share over the asks whose {@code ms} are the slowest tenth (at least one), and over the rest. */
        SlowestTenth split(double[] ms) {
            int[][] parts = slowestTenthAndRest(ms);
            return new SlowestTenth(share(parts[0]), share(parts[1]));
        }

        private double share(int[] asks) {
            long steal = 0;
            long total = 0;
            for (int i : asks) {
                if (before[i] == null || after[i] == null || !before[i].known() || !after[i].known()) return Double.NaN;
                steal += after[i].steal() - before[i].steal();
                total += after[i].total() - before[i].total();
            }
            return total <= 0 ? Double.NaN : (double) steal / total;
        }
    }

    /** The share during a stage's slowest tenth of asks, and during the rest. */
    record SlowestTenth(double slowest, double rest) {
        String describe() {
            return "host steal during the slowest tenth " + percent(slowest) + ", during the rest " + percent(rest);
        }
    }

    /** The indices of {@code ms}'s slowest tenth (at least one), slowest first, then of the rest. */
    static int[][] slowestTenthAndRest(double[] ms) {
        int[] order = Stats.slowestFirst(ms);
        int slow = Math.min(ms.length, Math.max(1, ms.length / 10));
        return new int[][]{Arrays.copyOfRange(order, 0, slow), Arrays.copyOfRange(order, slow, ms.length)};
    }

    /**
     * The share in each of {@code seconds} one-second windows from its construction, sampled by a daemon thread at
     * each window's end: the restart gate's view of whether a node's slow first second was the host's.
     */
    static final class Windows implements AutoCloseable {
        private final WindowSamples<Sample> samples;

        Windows(int seconds) {
            samples = new WindowSamples<>("host-steal", seconds, Sample::now);
        }

        /** Per window, once the last has ended (waits for it): NaN for a window not sampled or unknown. */
        double[] shares() throws InterruptedException {
            return samples.perWindow(HostSteal::share);
        }

        @Override
        public void close() {
            samples.close();
        }
    }

    /** "12 %", or "unknown". */
    static String percent(double share) {
        return Double.isNaN(share) ? "unknown" : String.format(Locale.ROOT, "%.0f %%", 100 * share);
    }

    /** For JSON: the share rounded to 3 decimals, or null when unknown. */
    static Double json(double share) {
        return Double.isNaN(share) ? null : Stats.r3(share);
    }
}
