package org.openxet.cli;

import org.openxet.service.DataDirLock;
import org.openxet.service.Recovery;
import org.openxet.service.ServerConfig;
import org.openxet.service.Services;
import org.openxet.service.XorbCollector;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;

/**
 * {@code openxet gc}: remove the xorbs no shard ever registered a file with, once they are older than a grace period,
 * from a data dir whose server is stopped (see {@link XorbCollector}).
 */
@Command(name = "gc", description = {"Remove xorbs that nothing uses (uploaded, but no shard registered a file with them) "
        + "once older than --older-than. Run it with the server stopped: it takes the data dir's lock.",
        "Embedded storage only (SQLite and the local bucket); prints one JSON line."})
public final class GcCommand implements Callable<Integer> {
    @Option(names = "--data", paramLabel = "DIR", description = "Data directory of the server (default ./data).")
    Path data;

    @Option(names = "--config", paramLabel = "FILE", description = "The server's YAML configuration file, if it has one.")
    Path config;

    @Option(names = "--older-than", paramLabel = "DURATION", description = "Grace period: keep xorbs registered more "
            + "recently, which a client that stopped mid-upload may still come back for (default 7d).")
    String olderThan = "7d";

    @Option(names = "--dry-run", description = "Count what would be removed; change nothing.")
    boolean dryRun;

    record Output(int unusedXorbs, int removed, long bytesFreed, boolean dryRun, String registeredBefore) {
    }

    @Override
    public Integer call() throws Exception {
        Duration grace = DurationOption.parse("--older-than", olderThan, "36h, 7d, 30d");
        if (grace.isNegative()) throw new IllegalArgumentException("--older-than must not be negative");
        ServerConfig cfg = ServerConfig.load(config);
        if (data != null) cfg = cfg.withDataDir(data);
        if (!cfg.storage().indexUrl().isEmpty() || !cfg.storage().bucketUrl().isEmpty()) {
            return fail(2, "gc works on a data dir's own SQLite index and bucket only: with a shared index or bucket"
                    + " other nodes may be uploading the xorbs it would take for unused");
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
            Services services = Services.open(cfg);
            XorbCollector.Report report;
            Instant now = Instant.now();
            try {
                // Like serve: a crashed run (of either) left objects of uploads it never acknowledged.
                if (Recovery.begin(dataDir)) {
                    Recovery.reconcile(services.index(), services.bucket());
                }
                report = XorbCollector.collect(services.index(), services.bucket(), now, grace, dryRun);
            } finally {
                services.close();
            }
            Recovery.endCleanly(dataDir);
            System.out.println(Json.line(new Output(report.unused(), report.removed(), report.bytesFreed(),
                    report.dryRun(), now.minus(grace).toString())));
            return 0;
        }
    }

    private static int fail(int code, String message) {
        System.err.println("openxet gc: " + message);
        return code;
    }
}
