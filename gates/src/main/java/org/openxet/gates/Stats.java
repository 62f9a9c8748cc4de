package org.openxet.gates;

import java.util.Arrays;

/** Percentiles by nearest rank (p99 of 200 samples is the third slowest), and medians of repeated timings. */
public final class Stats {
    private Stats() {
    }

    /** Nearest-rank percentile {@code p} (0–100] of {@code samples}. */
    public static double percentile(double[] samples, double p) {
        double[] s = samples.clone();
        Arrays.sort(s);
        int rank = (int) Math.ceil(p / 100.0 * s.length);
        return s[Math.max(0, Math.min(s.length - 1, rank - 1))];
    }

    public static double median(double[] samples) {
        double[] s = samples.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    public static double min(double[] samples) {
        return Arrays.stream(samples).min().orElse(Double.NaN);
    }

    public static double max(double[] samples) {
        return Arrays.stream(samples).max().orElse(Double.NaN);
    }

    /** The indices of {@code samples}, the largest (slowest) first; equal ones in their order. */
    public static int[] slowestFirst(double[] samples) {
        return java.util.stream.IntStream.range(0, samples.length).boxed()
                .sorted((a, b) -> Double.compare(samples[b], samples[a])).mapToInt(Integer::intValue).toArray();
    }

    /** Rounded to 3 decimals, for JSON. */
    public static double r3(double v) {
        return Math.round(v * 1000.0) / 1000.0;
    }

    public static String ms(double v) {
        return String.format(java.util.Locale.ROOT, "%.2f ms", v);
    }
}
