package org.openxet.cli;

import org.openxet.service.DataDirLock;
import org.openxet.service.Recovery;
import org.openxet.service.ServerConfig;
import org.openxet.service.Services;
import org.openxet.service.XorbCollector;
import org.openxet.storage.IndexException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;

/**
 * {@code openxet gc}: remove the xorbs no shard ever registered a file with, once they are older than a grace period,
 * from a data dir whose server is stopped (see {@link XorbCollector}); on storage several nodes share, only while the
 * PostgreSQL index proves every node stopped ({@link org.openxet.storage.Index#collector}).
 */
@Command(name = "gc", description = {"Remove xorbs that nothing uses (uploaded, but no shard registered a file with them) "
        + "once older than --older-than. Run it with the server stopped: it takes the data dir's lock.",
        "With a PostgreSQL index (and an S3 bucket) several nodes share, either stop every node first (gc checks through "
        + "PostgreSQL that none is connected, and no node starts until it is done) or collect while they serve with "
        + "--online. Prints one JSON line."})
public final class GcCommand implements Callable<Integer> {
    @Mixin
    StorageOptions storage;

    @Option(names = "--older-than", paramLabel = "DURATION", description = "Grace period: keep xorbs registered more "
            + "recently, which a client that stopped mid-upload may still come back for (default 7d).")
    String olderThan = "7d";

    @Option(names = "--dry-run", description = "Count what would be removed; change nothing (a crashed run's leftovers "
            + "too: the real run reconciles them first).")
    boolean dryRun;

    @Option(names = "--online", description = "With the PostgreSQL index several nodes share: collect while they "
            + "serve (needs --older-than of at least 2h). Takes no lock on the data dir and stops no node.")
    boolean online;

    record Output(int unusedXorbs, int removed, long bytesFreed, boolean dryRun, String registeredBefore) {
    }

    @Override
    public Integer call() throws Exception {
        Duration grace = DurationOption.parse("--older-than", olderThan, "36h, 7d, 30d");
        if (grace.isNegative()) throw new IllegalArgumentException("--older-than must not be negative");
        ServerConfig cfg = storage.load();
        boolean sharedIndex = !cfg.storage().indexUrl().isEmpty();
        if (!cfg.storage().bucketUrl().isEmpty() && !sharedIndex) {
            return fail(2, "an S3 bucket is collected only with the PostgreSQL index its nodes share, through which gc"
                    + " checks that every node is stopped; a data dir's own SQLite index cannot know about other nodes");
        }
        if (online) {
            if (!sharedIndex) {
                return fail(2, "--online needs the PostgreSQL index several nodes share; a data dir's own SQLite index "
                        + "is collected with its server stopped");
            }
            return collectOnline(cfg, grace);
        }
        Path dataDir = DataDirs.existing(cfg.dataDir()).toAbsolutePath();
        cfg = cfg.withDataDir(dataDir);
        DataDirLock lock;
        try {
            lock = DataDirLock.acquire(dataDir);
        } catch (DataDirLock.InUse e) {
            return fail(1, "data dir " + dataDir + " is in use by a running openxet server: stop it before gc");
        }
        try (lock) {
            Services services;
            try {
                services = Services.open(cfg);
            } catch (IndexException e) {
                return fail(2, e.getMessage());
            }
            XorbCollector.Report report = null;
            String refused = null;
            Instant now = Instant.now();
            try {
                // Like serve: a crashed run (of either) left objects of uploads it never acknowledged. A dry run
                // leaves them, and the marker that says so, for the real run: it changes nothing.
                if (!dryRun && Recovery.begin(dataDir)) {
                    Recovery.reconcile(services.index(), services.bucket());
                }
                try (ProgressDisplay display = new ProgressDisplay("gc")) {
                    report = XorbCollector.collect(services.index(), services.bucket(), now, grace, dryRun, display);
                } catch (IndexException e) {
                    if (!sharedIndex) throw e;
                    // Refused: a node runs or starts, or another gc holds the lock (collect's own failures too).
                    refused = e.getMessage();
                }
            } finally {
                services.close();
            }
            if (!dryRun) Recovery.endCleanly(dataDir);
            if (refused != null) return fail(1, refused);
            System.out.println(Json.line(new Output(report.unused(), report.removed(), report.bytesFreed(),
                    report.dryRun(), now.minus(grace).toString())));
            return 0;
        }
    }

    /** Beside the running nodes: the index and the bucket alone, as fsck opens them; no recovery, no data dir lock. */
    private int collectOnline(ServerConfig cfg, Duration grace) throws Exception {
        Instant now = Instant.now();
        XorbCollector.Report report;
        try (Services.Stores stores = Services.openStores(cfg); ProgressDisplay display = new ProgressDisplay("gc")) {
            report = XorbCollector.collectOnline(stores.index(), stores.bucket(), now, grace, dryRun, display);
        } catch (IndexException | IllegalArgumentException e) {
            return fail(2, e.getMessage());
        }
        System.out.println(Json.line(new Output(report.unused(), report.removed(), report.bytesFreed(),
                report.dryRun(), now.minus(grace).toString())));
        return 0;
    }

    private static int fail(int code, String message) {
        System.err.println("openxet gc: " + message);
        return code;
    }
}
