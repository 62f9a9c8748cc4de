package org.openxet.gates;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What the rig reads from a separately started server's {@code GET /metrics}, and the differences over a step. */
final class ServerMeters {
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*})? (\\S+)$");

    private ServerMeters() {
    }

    /** The server's /metrics samples, names with labels as keys. */
    static Map<String, Double> scrape(int port) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
        return parse(r.body());
    }

    /** Prometheus text's samples, names with labels as keys. */
    static Map<String, Double> parse(String text) {
        Map<String, Double> out = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            Matcher m = SAMPLE.matcher(line);
            if (!line.startsWith("#") && m.matches()) {
                out.put(m.group(1) + (m.group(2) == null ? "" : m.group(2)), Double.parseDouble(m.group(3)));
            }
        }
        return out;
    }

    static double heap(Map<String, Double> m) {
        double heap = 0;
        for (Map.Entry<String, Double> e : m.entrySet()) {
            if (e.getKey().startsWith("jvm_memory_used_bytes{area=\"heap\"")) heap += e.getValue();
        }
        return heap;
    }

    private static double sum(Map<String, Double> m, String name) {
        double total = 0;
        for (Map.Entry<String, Double> e : m.entrySet()) {
            if (e.getKey().equals(name) || e.getKey().startsWith(name + "{")) total += e.getValue();
        }
        return total;
    }

    /**
     * The server's collector pauses and the bytes its young collections promoted, from its /metrics (Micrometer's
     * JVM GC binder), or their difference over a step. Promotion shows what outlives young collections: a stream of it
     * makes young pauses grow with every step (docs/BENCHMARKS.md, "Young collections and uploads").
     */
    record GcFigures(long pauses, double pauseSeconds, long promotedBytes) {
        static GcFigures of(Map<String, Double> m) {
            return new GcFigures((long) sum(m, "jvm_gc_pause_seconds_count"), sum(m, "jvm_gc_pause_seconds_sum"),
                    (long) sum(m, "jvm_gc_memory_promoted_bytes_total"));
        }

        GcFigures since(GcFigures before) {
            return new GcFigures(pauses - before.pauses, pauseSeconds - before.pauseSeconds,
                    promotedBytes - before.promotedBytes);
        }

        String describe() {
            return String.format(Locale.ROOT, "%d pauses, %.0f ms in all (mean %.1f ms), %.0f MB promoted", pauses,
                    pauseSeconds * 1000, pauses == 0 ? 0.0 : pauseSeconds * 1000 / pauses, promotedBytes / 1e6);
        }
    }

    /**
     * The server's bearer-token checks ({@code openxet_token_checks_total}): answered from a token it verified before
     * (kept), or parsed and its signature checked (full). The kept tokens are the one cache left on the read path, and
     * the share it answers is what it buys: a full check of an asymmetric token costs 0.2–0.4 ms of CPU.
     */
    record TokenChecks(long kept, long full) {
        static TokenChecks of(Map<String, Double> m) {
            return new TokenChecks(m.getOrDefault("openxet_token_checks_total{result=\"kept\"}", 0.0).longValue(),
                    m.getOrDefault("openxet_token_checks_total{result=\"full\"}", 0.0).longValue());
        }

        TokenChecks since(TokenChecks before) {
            return new TokenChecks(kept - before.kept, full - before.full);
        }

        /** The share of checks answered from kept tokens; null when there were none. */
        Double keptShare() {
            long all = kept + full;
            return all == 0 ? null : (double) kept / all;
        }

        String describe() {
            Double share = keptShare();
            return String.format(Locale.ROOT, "%,d token checks, %s answered from tokens verified before (%,d in full)",
                    kept + full, share == null ? "none" : String.format(Locale.ROOT, "%.2f %%", 100 * share), full);
        }
    }
}
