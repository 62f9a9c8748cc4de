package org.openxet.cli;

import org.openxet.protocol.MerkleHash;
import org.openxet.service.Backup;
import org.openxet.service.ServerConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code openxet backup DEST}: a consistent copy of a data dir on embedded storage, taken while its server runs
 * ({@link Backup}). DEST is itself a data dir: restore by serving it, or by moving it in place of the old one.
 */
@Command(name = "backup", description = {"Copy a data dir (SQLite index, local bucket, keys, users) to DEST while its "
        + "server runs: the index as of one commit, then every object it names. DEST is a data dir: restore with "
        + "`openxet serve --data DEST` (or move it where the old one was).",
        "On a PostgreSQL index and an S3 bucket use the database's and the store's own tools (pg_dump or continuous "
        + "archiving; bucket versioning or replication) and copy secrets.properties. Prints one JSON line."})
public final class BackupCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "DEST", description = "A new (or empty) directory for the copy.")
    Path dest;

    @Mixin
    StorageOptions storage;

    record Output(String dest, long indexBytes, long xorbs, long shards, long objectBytes, List<String> missing) {
    }

    @Override
    public Integer call() throws Exception {
        ServerConfig cfg = storage.load();
        if (!cfg.storage().indexUrl().isEmpty() || !cfg.storage().bucketUrl().isEmpty()) {
            System.err.println("openxet backup: this data dir's index or blobs live in PostgreSQL or S3: back those up"
                    + " with their own tools (pg_dump or archiving; bucket versioning), and keep a copy of "
                    + "secrets.properties (README, \"Running in production\")");
            return 2;
        }
        Path source = DataDirs.existing(cfg.dataDir()).toAbsolutePath();
        Backup.Report r;
        try (ProgressDisplay display = new ProgressDisplay("backup")) {
            r = Backup.copy(source, dest.toAbsolutePath(), display);
        }
        for (MerkleHash h : r.missing()) {
            System.out.println("missing in the source bucket (run openxet fsck): " + h);
        }
        System.out.println(Json.line(new Output(dest.toAbsolutePath().toString(), r.indexBytes(), r.xorbs(), r.shards(),
                r.objectBytes(), r.missing().stream().map(MerkleHash::hex).toList())));
        return r.missing().isEmpty() ? 0 : 1;
    }
}
