package org.openxet.gates;

import org.HdrHistogram.Histogram;
import org.openxet.gates.ReconstructionFixtures.Shape;
import org.openxet.gates.ServerMeters.GcFigures;
import org.openxet.gates.ServerMeters.TokenChecks;
import org.openxet.http.RawHttp;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The release rig, {@code gates/run rig}: the latency target (a p99 under 50 ms at 1,000 requests/s per node on an
 * index of 10^7 files and 10^7 xorbs) measured as users run it. A fixture of {@code --files} files and as many xorbs
 * ({@link RigFixture}, bulk-loaded by {@link RigBuild}, kept with {@code --keep DIR}), a separately started
 * {@code openxet serve} on it, then: the cold stage (each of the cold set's 100,000-term files asked once, none asked
 * before, then each once more, warm), and open-loop steps of the realistic mix ({@link RigLoad}) at rising rates until
 * p99 reaches 50 ms or errors appear. Per step: achieved rate, percentiles, errors, the server's CPU, heap and RSS,
 * and the CPU time the host took from this guest ({@link HostSteal}). Last line: one JSON object ({@code --out FILE}
 * also writes it there, for {@code gates/run rig-plot}).
 *
 * <p>The load generator runs on the same machine as the server: its CPU is part of what a step costs.
 */
final class RigGate {
    /** The options it reads ({@code gates/run} refuses any other): its own and those of what it calls. */
    static final Set<String> OPTIONS = Args.union(Set.of(
            "rates", "seconds", "warmup-seconds", "histogram-rate", "out", "build-only"),
            RigSetup.OPTIONS, ServerProcess.OPTIONS);

    static final double P99_LIMIT_MS = 50.0;

    private RigGate() {
    }

    static int run(Args args) throws Exception {
        RigSetup setup = RigSetup.of(args, "openxet-rig");
        RigFixture fixture = setup.fixture;
        RigLoad.Workload workload = setup.workload;
        int cold = fixture.coldPerShape;
        int seconds = args.integer("seconds", 20);
        int warmupSeconds = args.integer("warmup-seconds", 10);
        List<Integer> rates = new ArrayList<>();
        for (String s : args.string("rates", "250,500,1000,2000,3000,4000").split(",")) rates.add(Integer.parseInt(s.trim()));
        System.out.printf(Locale.ROOT, "rig: %,d files on %s in %s; rates %s, %d s each; zipf %.2f, ranges %.0f%%, writes"
                        + " %.0f%%, v1 %.0f%%, large files %.2f%%; cold set %d per shape%n", setup.files(),
                setup.backend(), setup.data, rates, seconds, workload.zipfExponent(), 100 * workload.rangeShare(),
                100 * workload.writeShare(), 100 * workload.v1Share(), 100 * workload.largeShare(), cold);

        RigBuild.Built built = setup.build();

        if (args.flag("build-only")) {
            System.out.println(built.json());
            return 0;
        }
        Path data = setup.data;
        Path log = data.resolveSibling("rig-server.log");
        Process server = ServerProcess.start(args, data, log, setup.indexUrlOrNull());
        Map<String, Object> json = new LinkedHashMap<>();
        Map<String, Object> perRate = new LinkedHashMap<>();
        Map<String, Object> histogram = new LinkedHashMap<>();
        Integer saturation = null;
        try {
            int port = ServerProcess.awaitPort(server, log);
            System.out.println("openxet serve (pid " + server.pid() + ") on 127.0.0.1:" + port + ", log " + log);
            RigLoad load = setup.load(port, args);

            if (warmupSeconds > 0) {
                RigLoad.Step w = load.run(rates.get(0), warmupSeconds);
                System.out.printf("warm-up   %5d/s: %s%n", rates.get(0), line(w));
            }
            warmLargeAnswers(load, fixture);
            json.put("cold", coldStage(load, fixture, cold));
            int histogramRate = args.integer("histogram-rate", 1000);
            List<Path> indexFiles = RigBuild.indexFiles(data, setup.indexUrlOrNull());
            for (int rate : rates) {
                Thread.sleep(2000); // let the previous step's stragglers and GC settle
                OptionalLong resident = PageCache.residentBytes(indexFiles);
                long cpu0 = ProcessCpu.ticks(server.pid());
                boolean localPostgres = setup.indexUrlOrNull() != null;
                long postgres0 = localPostgres ? ProcessCpu.ticksOf("postgres") : 0;
                Map<String, Double> m0 = ServerMeters.scrape(port);
                HostSteal.Sample steal0 = HostSteal.Sample.now();
                JvmCounters generator0 = JvmCounters.now();
                long t0 = System.nanoTime();
                RigLoad.Step step = load.run(rate, seconds);
                double steal = HostSteal.share(steal0, HostSteal.Sample.now());
                JvmCounters generator = JvmCounters.now().since(generator0);
                double cpuSeconds = (ProcessCpu.ticks(server.pid()) - cpu0) / ProcessCpu.TICKS_PER_SECOND;
                double wall = (System.nanoTime() - t0) / 1e9;
                double generatorCores = generator.cpuNanos() < 0 ? Double.NaN : generator.cpuNanos() / 1e9 / wall;
                Double postgresCores = localPostgres
                        ? (ProcessCpu.ticksOf("postgres") - postgres0) / ProcessCpu.TICKS_PER_SECOND / wall : null;
                Map<String, Double> m = ServerMeters.scrape(port);
                GcFigures gc = GcFigures.of(m).since(GcFigures.of(m0));
                TokenChecks tokens = TokenChecks.of(m).since(TokenChecks.of(m0));
                System.out.printf(Locale.ROOT,
                        "rate      %5d/s: %s; server CPU %.2f cores, heap %.0f MB, RSS %.0f MB (%.0f MB of it anonymous);"
                                + " host steal %s%n",
                        rate, line(step), cpuSeconds / wall, ServerMeters.heap(m) / 1e6, rssBytes(server.pid()) / 1e6,
                        rssAnonBytes(server.pid()) / 1e6, HostSteal.percent(steal));
                System.out.println("                 server GC: " + gc.describe());
                // Its pauses delay the schedule, and the schedule charges them to the server (docs/BENCHMARKS.md).
                System.out.printf(Locale.ROOT, "                 load generator GC: %d pauses, %d ms in all%n",
                        generator.gcCount(), generator.gcMillis());
                // What else the two cores did: a step the server alone could answer may saturate the machine.
                System.out.printf(Locale.ROOT, "                 beside the server: load generator %.2f cores%s%n",
                        generatorCores, postgresCores == null ? ""
                                : String.format(Locale.ROOT, ", PostgreSQL %.2f (its processes on this machine)",
                                postgresCores));
                System.out.println("                 server: " + tokens.describe());
                System.out.println("                 " + cached(resident, indexFiles));
                Map<String, Object> r = OpenLoop.figures(step.outcome(), step.reads());
                r.put("writes", step.writes().getTotalCount());
                r.put("write_p99_ms", Stats.r3(OpenLoop.ms(step.writes(), 99)));
                Map<String, Object> classes = new LinkedHashMap<>();
                step.readsByClass().forEach((c, h) -> classes.put(c.name().toLowerCase(Locale.ROOT), kind(h)));
                classes.put("ranged", kind(step.rangedReads()));
                r.put("reads_by_class", classes);
                System.out.println("                 reads by class: " + Json.of(classes));
                r.put("server_cpu_cores", Stats.r3(cpuSeconds / wall));
                r.put("server_heap_bytes", (long) ServerMeters.heap(m));
                r.put("server_gc_pauses", gc.pauses());
                r.put("server_gc_pause_ms", Stats.r3(gc.pauseSeconds() * 1000));
                r.put("server_gc_promoted_bytes", gc.promotedBytes());
                r.put("generator_gc_pauses", generator.gcCount());
                r.put("generator_gc_pause_ms", generator.gcMillis());
                r.put("generator_cpu_cores", Stats.r3(generatorCores));
                r.put("postgres_cpu_cores", postgresCores == null ? null : Stats.r3(postgresCores));
                r.put("server_token_checks", tokens.kept() + tokens.full());
                Double kept = tokens.keptShare();
                r.put("server_token_kept_share", kept == null ? null : Stats.r3(kept));
                r.put("server_rss_bytes", rssBytes(server.pid()));
                r.put("server_rss_anon_bytes", rssAnonBytes(server.pid()));
                r.put("host_steal", HostSteal.json(steal));
                r.put("index_cached_bytes", resident.isPresent() ? resident.getAsLong() : null);
                perRate.put(Integer.toString(rate), r);
                if (rate == histogramRate) histogram = percentiles(step.reads());
                boolean good = step.errors() == 0 && step.ms(99) < P99_LIMIT_MS && step.achieved() >= 0.97 * rate;
                if (good) saturation = rate;
                if (!good) {
                    System.out.println("stopping: p99 reached " + P99_LIMIT_MS + " ms, errors appeared or the rate was"
                            + " not achieved");
                    break;
                }
            }
            json.put("server_rss_bytes", rssBytes(server.pid()));
            json.put("server_rss_anon_bytes", rssAnonBytes(server.pid()));
        } finally {
            server.destroy();
            if (!server.waitFor(30, TimeUnit.SECONDS)) server.destroyForcibly().waitFor();
            setup.removeIfTemporary();
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("files", setup.files());
        out.put("xorbs", fixture.xorbs());
        out.put("backend", setup.backend());
        out.put("rates", perRate);
        out.put("saturation_rps", saturation);
        out.putAll(json);
        out.put("fixture_build_s", Stats.r3(built.seconds()));
        out.put("index_bytes", built.indexBytes());
        out.put("histogram_rate", args.integer("histogram-rate", 1000));
        out.put("histogram", histogram);
        Map<String, Object> mix = workload.json();
        mix.put("seconds", seconds);
        out.put("workload", mix);
        Machine.describe(out);
        String line = Json.of(out);
        String outFile = args.string("out", "");
        if (!outFile.isEmpty()) Files.writeString(Path.of(outFile), line + "\n");
        System.out.println("saturation (highest rate with p99 < 50 ms, no errors): "
                + (saturation == null ? "none" : saturation + " req/s"));
        System.out.println(line);
        return saturation != null && saturation >= 1000 ? 0 : 1;
    }

    /**
     * How much of the index's files the page cache held as a step began. Comparing index sizes is the rig's point, and
     * a step whose index is partly on disk measures the disk: on the AMD VM a 10^7 SQLite index sharing the page cache
     * with a 10^7 PostgreSQL one gave p99 about 4× that of 10^5, and 1.2× once it was cached (docs/BENCHMARKS.md,
     * "Release rig"). A lower bound of what reads find in memory: PostgreSQL keeps pages in its own buffers too, and
     * some of an index's pages (tables a step does not read) are never asked for.
     */
    static String cached(OptionalLong resident, List<Path> indexFiles) {
        if (resident.isEmpty()) return "index in the page cache: unknown (no fincore, or the index's files unreadable)";
        long size = 0;
        for (Path f : indexFiles) {
            try {
                size += Files.size(f);
            } catch (java.io.IOException e) {
                // gone since it was listed (a WAL checkpointed away): it holds nothing
            }
        }
        double share = size == 0 ? 1 : Math.min(1, (double) resident.getAsLong() / size);
        return String.format(Locale.ROOT, "index in the page cache as the step began: %.2f of %.2f GB (%.0f %%)%s",
                resident.getAsLong() / 1e9, size / 1e9, 100 * share, share < 0.9
                        ? ": reads may go to disk, so this step's p99 may not compare across index sizes" : "");
    }

    /**
     * The large-answer code warmed on the population's own largest files (the mix asks for them too rarely to warm
     * it in seconds), so the cold stage measures answers no cache has seen on a server whose JIT has: a restarted
     * node's first seconds are another issue's measurement.
     */
    private static void warmLargeAnswers(RigLoad load, RigFixture f) {
        long[] large = Arrays.copyOf(load.largeFiles(), Math.min(8, load.largeFiles().length));
        for (int pass = 0; pass < 20; pass++) {
            for (long i : large) load.read(i, false, null);
        }
        System.out.println("large answers warmed on " + large.length + " population files of 10,000 or 100,000 terms");
    }

    /** The largest answer the cold stage's floor can match (a full 100,000-term v2 answer is about 22 MB). */
    private static final long FLOOR_MAX_BYTES = 64L << 20;

    /**
     * Each cold-set 100,000-term file once (answers no cache has seen: the workload never asks for these), each ask
     * followed by as many bytes through {@link BytesFloor}, then each file once more (warm), one request at a time on
     * one connection. The floor is what this host's loopback, Helidon and the client cost for those bytes in the same
     * minutes: on a shared VM both move by a third between runs minutes apart (docs/BENCHMARKS.md), so a first ask's
     * time beside its bytes' time says what the server's own work adds, and whether a miss was the host's. So does
     * the CPU time the host took from this guest ({@link HostSteal}) during the slowest tenth of first asks against
     * the rest.
     */
    private static Map<String, Object> coldStage(RigLoad load, RigFixture f, int k) throws IOException {
        Map<String, Object> out = new LinkedHashMap<>();
        try (GetClient.Raw client = new GetClient.Raw("127.0.0.1", load.port(), load.readToken(RigFixture.COLD_SCOPE));
             BytesFloor floor = new BytesFloor(FLOOR_MAX_BYTES)) {
            for (int i = 0; i < 10; i++) floor.transfer(16L << 20); // its route compiled before the first ask
            for (Shape shape : Shape.values()) {
                double[] first = new double[k];
                double[] again = new double[k];
                double[] bytes = new double[k];
                double[] over = new double[k];
                HostSteal.PerAsk steal = new HostSteal.PerAsk(k);
                long size = 0;
                for (int i = 0; i < k; i++) {
                    steal.begin(i);
                    RawHttp.Response r = coldAsk(client, f, shape, i);
                    steal.end(i);
                    first[i] = r.millis();
                    size = r.bodyBytes();
                    bytes[i] = floor.transfer(size).millis();
                    over[i] = first[i] - bytes[i];
                }
                for (int i = 0; i < k; i++) {
                    again[i] = coldAsk(client, f, shape, i).millis();
                }
                System.out.printf(Locale.ROOT, "cold %-8s 100k-term full answers, %d files: first p50 %s p99 %s; again p50 %s"
                                + " p99 %s%n", shape.label(), k, Stats.ms(Stats.percentile(first, 50)),
                        Stats.ms(Stats.percentile(first, 99)), Stats.ms(Stats.percentile(again, 50)),
                        Stats.ms(Stats.percentile(again, 99)));
                System.out.printf(Locale.ROOT, "              its %,d bytes alone after each first ask (a bare route):"
                                + " p50 %s p99 %s; a first ask less its bytes: p50 %s p99 %s%n", size,
                        Stats.ms(Stats.percentile(bytes, 50)), Stats.ms(Stats.percentile(bytes, 99)),
                        Stats.ms(Stats.percentile(over, 50)), Stats.ms(Stats.percentile(over, 99)));
                HostSteal.SlowestTenth stolen = steal.split(first);
                System.out.println("              first asks: " + stolen.describe());
                out.put(shape.label() + "_full_p50_ms", Stats.r3(Stats.percentile(first, 50)));
                out.put(shape.label() + "_full_p99_ms", Stats.r3(Stats.percentile(first, 99)));
                out.put(shape.label() + "_warm_p50_ms", Stats.r3(Stats.percentile(again, 50)));
                out.put(shape.label() + "_warm_p99_ms", Stats.r3(Stats.percentile(again, 99)));
                out.put(shape.label() + "_bytes", size);
                out.put(shape.label() + "_floor_p50_ms", Stats.r3(Stats.percentile(bytes, 50)));
                out.put(shape.label() + "_floor_p99_ms", Stats.r3(Stats.percentile(bytes, 99)));
                out.put(shape.label() + "_over_floor_p50_ms", Stats.r3(Stats.percentile(over, 50)));
                out.put(shape.label() + "_over_floor_p99_ms", Stats.r3(Stats.percentile(over, 99)));
                out.put(shape.label() + "_slowest_tenth_host_steal", HostSteal.json(stolen.slowest()));
                out.put(shape.label() + "_rest_host_steal", HostSteal.json(stolen.rest()));
            }
        }
        out.put("n", k);
        return out;
    }

    /** Cold-set file {@code i} of {@code shape}, whole, on the stage's one connection; it must be answered 200. */
    private static RawHttp.Response coldAsk(GetClient.Raw client, RigFixture f, Shape shape, int i) throws IOException {
        RawHttp.Response r = client.get("/v2/reconstructions/" + f.fileHash(f.coldFile(shape, i)).hex(), null, null);
        if (r.status() != 200) {
            throw new IllegalStateException("cold file " + i + " (" + shape.label() + ") was answered " + r.status());
        }
        return r;
    }

    private static String line(RigLoad.Step s) {
        return String.format(Locale.ROOT, "sent %,d errors %d achieved %.1f/s  p50 %s  p90 %s  p99 %s  p99.9 %s  max %s"
                        + "  (writes %d, p99 %s)", s.sent(), s.errors(), s.achieved(), Stats.ms(s.ms(50)),
                Stats.ms(s.ms(90)), Stats.ms(s.ms(99)), Stats.ms(s.ms(99.9)), Stats.ms(s.maxMs()),
                s.writes().getTotalCount(), Stats.ms(OpenLoop.ms(s.writes(), 99)));
    }

    /** One kind of read's count and latencies. */
    private static Map<String, Object> kind(Histogram h) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("n", h.getTotalCount());
        if (h.getTotalCount() > 0) {
            out.put("p50_ms", Stats.r3(OpenLoop.ms(h, 50)));
            out.put("p99_ms", Stats.r3(OpenLoop.ms(h, 99)));
            out.put("max_ms", Stats.r3(OpenLoop.maxMs(h)));
        }
        return out;
    }

    /** The latency distribution as {percentile: ms} at fixed points, for the histogram plot. */
    private static Map<String, Object> percentiles(Histogram h) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (double p : new double[]{1, 5, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99, 100}) {
            out.put(Double.toString(p), Stats.r3(h.getValueAtPercentile(p) / 1000.0));
        }
        return out;
    }

    /** The server's resident memory, its mapped index pages included (page cache, which the kernel can reclaim). */
    static long rssBytes(long pid) {
        return status(pid, "VmRSS:");
    }

    /** The server's own memory: resident anonymous pages (heap, native buffers), without mapped files. */
    static long rssAnonBytes(long pid) {
        return status(pid, "RssAnon:");
    }

    private static long status(long pid, String field) {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (l.startsWith(field)) {
                    return 1024 * Long.parseLong(Arrays.stream(l.substring(field.length()).trim().split("\\s+"))
                            .findFirst().orElse("0"));
                }
            }
        } catch (Exception ignored) {
            // not Linux
        }
        return 0;
    }
}
