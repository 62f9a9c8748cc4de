package org.openxet.gates;

import org.HdrHistogram.Histogram;
import org.openxet.http.RawHttp;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The restart gate, {@code gates/run restart}: a node restarted under full traffic (an upgrade, a crash under a
 * supervisor, a rolling deploy) must answer as a warm one from its first second. On the rig's fixture ({@link RigFixture},
 * kept with {@code --keep DIR}), for each variant and rate: a fresh {@code openxet serve} process, {@code /ready}
 * polled every 5 ms from the moment the process is started ({@code /health} if the server has no {@code /ready}),
 * then at once the rig's request mix ({@link RigLoad}) open loop at the rate for {@code --seconds}, each request
 * counted in the one-second window of its intended send time. Per window: the reads' p50, p99 and max, the writes'
 * p99, errors, the CPU time the host took from this guest ({@link HostSteal}) and how long the load generator's own
 * JVM paused for its collector (charged to the server by the schedule, which it delays). The target: in every window,
 * reads' p99 under 50 ms and no errors; start to ready under 3 s with the AOT cache.
 *
 * <p>Variants, to see what each measure buys: {@code plain} (no AOT cache, no warm-up: a JVM as main started it),
 * {@code aot} (the launcher's AOT cache, {@code -Dopenxet.server.aot} from gates/run), {@code warmup} (the server's
 * self-warm-up before ready, no cache) and {@code aot+warmup} (both: what {@code ./openxet serve} runs). Runs are
 * interleaved (repeat 1 of every variant and rate, then repeat 2, ...) so a noisy minute hits all of them alike, and
 * each window's figures are the median over the repeats. Before them, one unmeasured run
 * ({@code --client-warmup-seconds}, 10) warms the load generator's own JIT: a balancer is not a cold JVM.
 */
final class RestartGate {
    /** The options it reads ({@code gates/run} refuses any other): its own and those of what it calls. */
    static final Set<String> OPTIONS = Args.union(Set.of(
            "rates", "seconds", "repeats", "variants", "warmup-duration", "client-warmup-seconds", "drop-caches",
            "plot", "out"),
            RigSetup.OPTIONS, ServerProcess.OPTIONS);

    static final double P99_LIMIT_MS = 50.0;
    static final double READY_LIMIT_MS = 3000.0;
    /** Where the AOT cache's path arrives from gates/run (the launcher's own, made when missing or stale). */
    static final String AOT_PROPERTY = "openxet.server.aot";
    /** The launcher's JVM options for that cache, as ./openxet passes them (scripts/env.sh, aot_cache_args). */
    static final String AOT_ARGS_PROPERTY = "openxet.server.aot.args";
    static final List<String> VARIANTS = List.of("plain", "aot", "warmup", "aot+warmup");

    private RestartGate() {
    }

    /** One variant's server: the JVM options and environment it adds to ./openxet's. */
    record Variant(String name, List<String> jvm, Map<String, String> env) {
        boolean aot() {
            return name.contains("aot");
        }

        static Variant of(String name, String aotCache, String warmup, List<String> launcher) {
            if (!VARIANTS.contains(name)) {
                throw new IllegalArgumentException("unknown variant " + name + " (" + String.join(", ", VARIANTS) + ")");
            }
            List<String> jvm = new ArrayList<>();
            if (name.contains("aot")) {
                // What ./openxet passes (scripts/env.sh, aot_cache_args: the cache, and eager compilation where the
                // JDK has it), from gates/run.
                if (aotCache.isEmpty() || !Files.exists(Path.of(aotCache)) || launcher.isEmpty()) {
                    throw new IllegalArgumentException("variant " + name + " needs the launcher's AOT cache: run through"
                            + " gates/run, which makes it, on the launcher's jar (-D" + AOT_PROPERTY + "=" + aotCache
                            + ", -D" + AOT_ARGS_PROPERTY + "=" + String.join(" ", launcher) + ")");
                }
                jvm.addAll(launcher);
            }
            // The warm-up is on by default (--warmup-duration sets its length); the variants without it turn it off as
            // an operator would.
            Map<String, String> env = !name.contains("warmup") ? Map.of("OPENXET_WARMUP_DURATION", "0s")
                    : warmup.isEmpty() ? Map.of() : Map.of("OPENXET_WARMUP_DURATION", warmup);
            return new Variant(name, jvm, env);
        }
    }

    /**
     * One run's figures: start to listening and to ready, and per window reads' p50/p99/max, writes' p99, errors,
     * the host's steal ({@link HostSteal}) and the load generator's collector pauses in milliseconds.
     */
    record Run(String variant, int rate, double listeningMs, double readyMs, double[] p50, double[] p99, double[] max,
               double[] writeP99, long[] requests, long[] errors, long unfinished, double[] hostSteal,
               double[] generatorPauseMs) {
    }

    static int run(Args args) throws Exception {
        RigSetup setup = RigSetup.of(args, "openxet-restart");
        if (args.flag("drop-caches")) PageCache.checkAllowed();
        int seconds = args.integer("seconds", 30);
        int repeats = args.integer("repeats", 1);
        List<Integer> rates = new ArrayList<>();
        for (String s : args.string("rates", "1000,2000").split(",")) rates.add(Integer.parseInt(s.trim()));
        String aotCache = System.getProperty(AOT_PROPERTY, "");
        List<String> launcher = ServerProcess.launcherAot(args);
        List<Variant> variants = new ArrayList<>();
        for (String v : args.string("variants", String.join(",", VARIANTS)).split(",")) {
            variants.add(Variant.of(v.trim(), aotCache, args.string("warmup-duration", ""), launcher));
        }
        System.out.printf(Locale.ROOT, "restart: %,d files on %s in %s; variants %s; rates %s; the first %d s after ready,"
                        + " %d repeat(s); AOT cache %s%n", setup.files(), setup.backend(), setup.data,
                variants.stream().map(Variant::name).toList(), rates, seconds, repeats,
                aotCache.isEmpty() ? "none" : aotCache);
        System.out.printf(Locale.ROOT, "target: in every 1-second window after ready, reads' p99 < %.0f ms and no errors;"
                + " start to ready < %.0f s with the AOT cache%n", P99_LIMIT_MS, READY_LIMIT_MS / 1000);

        RigBuild.Built built = setup.build();
        List<Run> runs = new ArrayList<>();
        try {
            int clientWarmup = args.integer("client-warmup-seconds", 10);
            if (clientWarmup > 0) {
                // The load generator's own JIT, warm before the first measured run as a balancer's is: otherwise the
                // first run's first seconds measure the client too. Its server is thrown away.
                Run w = once(args, setup, variants.getLast(), rates.getFirst(), clientWarmup);
                System.out.println("load generator warmed (not counted): " + runLine(w, 0));
            }
            for (int k = 1; k <= repeats; k++) {
                for (Variant v : variants) {
                    for (int rate : rates) {
                        Run r = once(args, setup, v, rate, seconds);
                        runs.add(r);
                        System.out.println(runLine(r, k));
                    }
                }
            }
        } finally {
            setup.removeIfTemporary();
        }

        Map<String, Object> byVariant = new LinkedHashMap<>();
        boolean metAll = true;
        List<RestartPlot.Line> lines = new ArrayList<>();
        System.out.println();
        System.out.println("medians over " + repeats + " repeat(s); p99 of reads per 1-second window after ready (ms):");
        StringBuilder header = new StringBuilder("   s");
        List<double[]> columns = new ArrayList<>();
        for (Variant v : variants) {
            Map<String, Object> perRate = new LinkedHashMap<>();
            for (int rate : rates) {
                List<Run> these = runs.stream().filter(r -> r.variant().equals(v.name()) && r.rate() == rate).toList();
                Map<String, Object> s = summary(these, v.aot(), seconds);
                perRate.put(Integer.toString(rate), s);
                metAll &= (Boolean) s.get("target_met");
                double[] p99 = median(these, Run::p99, seconds);
                columns.add(p99);
                header.append(String.format(Locale.ROOT, " %16s", v.name() + "@" + rate));
                lines.add(new RestartPlot.Line(v.name(), rate, p99));
                System.out.printf(Locale.ROOT, "%-10s %5d/s: start to ready %s (listening %s); first window p99 %s"
                                + " (host steal %s, load generator paused %.0f ms), worst p99 %s (second %d), errors %d;"
                                + " target %s%n", v.name(), rate,
                        ms(s.get("ready_ms")), ms(s.get("listening_ms")), ms(s.get("first_window_p99_ms")),
                        HostSteal.percent(((double[]) s.get("host_steal"))[0]),
                        ((double[]) s.get("generator_gc_pause_ms"))[0], ms(s.get("worst_p99_ms")),
                        (Integer) s.get("worst_second"), (Long) s.get("errors"),
                        (Boolean) s.get("target_met") ? "met" : "missed");
            }
            byVariant.put(v.name(), perRate);
        }
        System.out.println(header);
        for (int w = 0; w < seconds; w++) {
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%4d", w + 1));
            for (double[] c : columns) row.append(String.format(Locale.ROOT, " %16.1f", c[w]));
            System.out.println(row);
        }
        String plot = args.string("plot", "");
        if (!plot.isEmpty()) {
            for (Path p : RestartPlot.write(Path.of(plot), lines, setup.files(), setup.backend())) {
                System.out.println("wrote " + p);
            }
        }

        Map<String, Object> out = new LinkedHashMap<>();
        out.put("gate", "restart");
        out.put("files", setup.files());
        out.put("backend", setup.backend());
        out.put("seconds", seconds);
        out.put("repeats", repeats);
        out.put("target", "every 1 s window after ready: reads p99 < 50 ms, no errors; start to ready < 3 s with the"
                + " AOT cache");
        out.put("target_met", metAll);
        out.put("variants", byVariant);
        out.put("workload", setup.workload.json());
        out.put("index_bytes", built.indexBytes());
        Machine.describe(out);
        String line = Json.of(out);
        String outFile = args.string("out", "");
        if (!outFile.isEmpty()) Files.writeString(Path.of(outFile), line + "\n");
        System.out.println(line);
        return metAll ? 0 : 1;
    }

    /** One fresh server: started, polled until ready, loaded from its first moment, stopped. */
    private static Run once(Args args, RigSetup setup, Variant v, int rate, int seconds) throws Exception {
        Thread.sleep(2000); // the previous server's exit and the page cache settle
        if (args.flag("drop-caches")) PageCache.drop();
        Path log = setup.data.resolveSibling("restart-server.log");
        long t0 = System.nanoTime();
        Process server = ServerProcess.start(args, setup.data, log, setup.indexUrlOrNull(), v.jvm(), v.env());
        try {
            int port = ServerProcess.awaitPort(server, log);
            double listening = (System.nanoTime() - t0) / 1e6;
            awaitReady(port, server);
            double ready = (System.nanoTime() - t0) / 1e6;
            RigLoad load = setup.load(port, args);
            RigLoad.Windows w;
            double[] steal;
            double[] generatorPauses;
            try (HostSteal.Windows stolen = new HostSteal.Windows(seconds);
                 WindowSamples<JvmCounters> generator = new WindowSamples<>("generator-gc", seconds, JvmCounters::now)) {
                w = load.runWindows(rate, seconds);
                steal = stolen.shares();
                generatorPauses = generator.perWindow((from, to) -> to.gcMillis() - from.gcMillis());
            }
            double[] p50 = new double[seconds];
            double[] p99 = new double[seconds];
            double[] max = new double[seconds];
            double[] writeP99 = new double[seconds];
            long[] requests = new long[seconds];
            long[] errors = new long[seconds];
            long windowErrors = 0;
            for (int s = 0; s < seconds; s++) {
                Histogram reads = w.reads()[s];
                p50[s] = Stats.r3(OpenLoop.ms(reads, 50));
                p99[s] = Stats.r3(OpenLoop.ms(reads, 99));
                max[s] = Stats.r3(OpenLoop.maxMs(reads));
                writeP99[s] = Stats.r3(OpenLoop.ms(w.writes()[s], 99));
                errors[s] = w.errors().get(s);
                requests[s] = reads.getTotalCount() + w.writes()[s].getTotalCount() + errors[s];
                windowErrors += errors[s];
            }
            return new Run(v.name(), rate, listening, ready, p50, p99, max, writeP99, requests, errors,
                    w.outcome().errors() - windowErrors, steal, generatorPauses);
        } finally {
            server.destroy();
            if (!server.waitFor(30, TimeUnit.SECONDS)) server.destroyForcibly().waitFor();
        }
    }

    /** Polls {@code /ready} every 5 ms until it answers 200 ({@code /health} when there is no {@code /ready}). */
    private static void awaitReady(int port, Process server) throws Exception {
        String path = "/ready";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        RawHttp c = null;
        while (System.nanoTime() < deadline && server.isAlive()) {
            try {
                if (c == null || !c.isOpen()) c = new RawHttp("127.0.0.1", port);
                int status = c.exchange(RawHttp.get("127.0.0.1", port, path, null, null), null).status();
                if (status == 200) {
                    c.close();
                    return;
                }
                if (status == 404) path = "/health";
            } catch (java.io.IOException e) {
                if (c != null) c.close();
                c = null;
            }
            Thread.sleep(5);
        }
        throw new IllegalStateException("the server was not ready within 120 s");
    }

    private static String runLine(Run r, int repeat) {
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "run %d %-10s %5d/s: listening %s, ready %s;"
                + " p99 per second:", repeat, r.variant(), r.rate(), Stats.ms(r.listeningMs()), Stats.ms(r.readyMs())));
        for (double v : r.p99()) s.append(String.format(Locale.ROOT, " %.1f", v));
        long errors = java.util.Arrays.stream(r.errors()).sum() + r.unfinished();
        s.append(String.format(Locale.ROOT, "; max %.1f ms; errors %d; host steal %s in the first second, %s in all",
                Stats.max(r.max()), errors, HostSteal.percent(r.hostSteal()[0]),
                HostSteal.percent(java.util.Arrays.stream(r.hostSteal()).average().orElse(Double.NaN))));
        s.append(String.format(Locale.ROOT, "; the load generator paused %.0f ms in the first second, %.0f in all",
                r.generatorPauseMs()[0], java.util.Arrays.stream(r.generatorPauseMs()).sum()));
        return s.toString();
    }

    /** A variant at a rate over its repeats: medians per window, the start-to-ready times, and whether it met the target. */
    private static Map<String, Object> summary(List<Run> runs, boolean aot, int seconds) {
        double[] p50 = median(runs, Run::p50, seconds);
        double[] p99 = median(runs, Run::p99, seconds);
        double[] max = median(runs, Run::max, seconds);
        double[] writeP99 = median(runs, Run::writeP99, seconds);
        long errors = 0;
        long[] errorsPerWindow = new long[seconds];
        for (Run r : runs) {
            errors += r.unfinished();
            for (int s = 0; s < seconds; s++) {
                errors += r.errors()[s];
                errorsPerWindow[s] += r.errors()[s];
            }
        }
        int worst = 0;
        for (int s = 1; s < seconds; s++) if (!(p99[s] <= p99[worst])) worst = s;
        double ready = Stats.median(runs.stream().mapToDouble(Run::readyMs).toArray());
        // The target on every run, not the median: one repeat that missed is a miss.
        boolean met = errors == 0 && (!aot || runs.stream().allMatch(r -> r.readyMs() < READY_LIMIT_MS))
                && runs.stream().allMatch(r -> java.util.Arrays.stream(r.p99()).allMatch(v -> v < P99_LIMIT_MS));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ready_ms", Stats.r3(ready));
        m.put("ready_ms_runs", runs.stream().map(r -> Stats.r3(r.readyMs())).toList());
        m.put("listening_ms", Stats.r3(Stats.median(runs.stream().mapToDouble(Run::listeningMs).toArray())));
        m.put("first_window_p99_ms", p99[0]);
        m.put("worst_p99_ms", p99[worst]);
        m.put("worst_second", worst + 1);
        m.put("errors", errors);
        m.put("target_met", met);
        m.put("p50_ms", p50);
        m.put("p99_ms", p99);
        m.put("max_ms", max);
        m.put("write_p99_ms", writeP99);
        m.put("errors_per_window", errorsPerWindow);
        m.put("host_steal", median(runs, Run::hostSteal, seconds));
        m.put("generator_gc_pause_ms", median(runs, Run::generatorPauseMs, seconds));
        return m;
    }

    /** Per window, the median over the runs of {@code of(run)[window]}. */
    private static double[] median(List<Run> runs, java.util.function.Function<Run, double[]> of, int seconds) {
        double[] out = new double[seconds];
        for (int s = 0; s < seconds; s++) {
            final int w = s;
            double[] v = runs.stream().mapToDouble(r -> of.apply(r)[w]).filter(d -> !Double.isNaN(d)).toArray();
            out[s] = v.length == 0 ? Double.NaN : Stats.r3(Stats.median(v));
        }
        return out;
    }

    private static String ms(Object v) {
        return Stats.ms(((Number) v).doubleValue());
    }
}
