package org.openxet.cli;

import org.openxet.service.DataDirLock;
import org.openxet.service.IndexRebuild;
import org.openxet.service.ServerConfig;
import org.openxet.service.Services;
import org.openxet.storage.IndexException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code openxet index ...}: maintenance of the index itself. */
@Command(name = "index", description = "Maintenance of the index.", subcommands = IndexCommand.Rebuild.class)
public final class IndexCommand {
    /**
     * {@code openxet index rebuild}: a lost index recreated from the bucket alone ({@link IndexRebuild}), with the
     * server stopped. Refuses an index that still exists (SQLite) or holds rows (PostgreSQL). Exit 0 when everything
     * was registered again, 1 when objects had to be skipped (named), 2 on a usage or storage error.
     */
    @Command(name = "rebuild", description = {"Recreate a lost index from the bucket alone: every xorb validated and "
            + "registered, then every shard registered again under the scopes that registered it (the bucket's "
            + "registrations/ records), in the order they were made, then every write to a bucket repository (the "
            + "bucket-changes/ records) in the order the index made them. Run it with the server stopped, on a data dir "
            + "whose index.sqlite is gone (move a damaged one aside first) or into an empty PostgreSQL database.",
            "Prints one JSON line last; exit 1 when objects had to be skipped (named in the output)."})
    static final class Rebuild implements Callable<Integer> {
        @Mixin
        StorageOptions storage;

        @Override
        public Integer call() throws Exception {
            ServerConfig cfg = storage.load();
            Path dataDir = DataDirs.existing(cfg.dataDir()).toAbsolutePath();
            cfg = cfg.withDataDir(dataDir);
            if (cfg.storage().indexUrl().isEmpty() && Files.exists(dataDir.resolve("index.sqlite"))) {
                return fail(dataDir.resolve("index.sqlite") + " exists: move it aside (with its -wal and -shm files)"
                        + " to rebuild it from the bucket");
            }
            DataDirLock lock;
            try {
                lock = DataDirLock.acquire(dataDir);
            } catch (DataDirLock.InUse e) {
                return fail("data dir " + dataDir + " is in use by a running server: stop it");
            }
            try (lock; Services.Stores stores = Services.openStores(cfg);
                 ProgressDisplay display = new ProgressDisplay("index rebuild")) {
                Map<String, Long> rows = new java.util.LinkedHashMap<>(stores.index().scans().rowCounts());
                rows.putAll(stores.index().bucketRepos().rowCounts());
                if (rows.values().stream().anyMatch(n -> n > 0)) {
                    return fail("the index is not empty (" + rows + "): rebuild into an empty database");
                }
                IndexRebuild.Report r = IndexRebuild.rebuild(stores.index(), stores.bucket(), display);
                display.close();
                for (String s : r.skipped()) System.out.println("skipped " + s);
                System.out.println(Json.line(r));
                return r.skipped().isEmpty() ? 0 : 1;
            } catch (IndexException e) {
                return fail(e.getMessage());
            }
        }

        private static int fail(String message) {
            System.err.println("openxet index rebuild: " + message);
            return 2;
        }
    }
}
