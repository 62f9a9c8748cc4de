package org.openxet.service;

import org.openxet.protocol.MerkleHash;
import org.openxet.storage.Bucket;
import org.openxet.storage.Index;
import org.openxet.storage.IndexException;
import org.openxet.storage.IndexScans;
import org.openxet.storage.LocalBucket;
import org.openxet.storage.OwnerOnly;
import org.openxet.storage.SqliteIndex;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A consistent copy of a data dir on embedded storage (SQLite and the local bucket), taken while its server runs
 * ({@code openxet backup}): first the index as of one commit ({@link SqliteIndex#snapshot}), then every object that
 * copy names, then the keys and users. Objects are named by their content and never change once stored, and a
 * registration stores its objects before its index commit, so every object the copy names exists in the live bucket
 * (gc, which removes objects, runs only with the server stopped and holds the data dir's lock). The registration
 * records and the bucket repositories' write records go with them, as they were at the snapshot (what
 * {@code openxet index rebuild} needs of the copy). The result is a data dir: {@code openxet serve --data DEST}
 * serves what the server served at the snapshot, with the same tokens.
 *
 * <p>The copy is made in {@code DEST.partial-PID} beside {@code DEST}, its files fsynced, and renamed to {@code DEST}
 * only when whole: an interrupted or failed backup (Ctrl-C, a full disk) never leaves a {@code DEST} that looks like a
 * data dir but lacks its keys, which {@code serve} would replace with new ones, refusing every token of the original.
 */
public final class Backup {
    public record Report(long indexBytes, long xorbs, long shards, long objectBytes, List<MerkleHash> missing) {
    }

    private Backup() {
    }

    /** Copies {@code source} into {@code dest}, which must not exist or be empty. */
    public static Report copy(Path source, Path dest, Progress progress) throws IOException, IndexException {
        if (Files.isDirectory(dest)) {
            try (var entries = Files.list(dest)) {
                if (entries.findAny().isPresent()) throw new IOException(dest + " is not empty: give a new directory");
            }
        }
        Path whole = dest.toAbsolutePath();
        Path staged = whole.resolveSibling(whole.getFileName() + ".partial-" + ProcessHandle.current().pid());
        Report report;
        try {
            report = copyInto(source, staged, progress);
            OwnerOnly.syncDirectory(staged);
            Files.deleteIfExists(whole); // an empty directory the operator made for it
            Files.move(staged, whole, StandardCopyOption.ATOMIC_MOVE);
            OwnerOnly.syncDirectory(whole.getParent());
        } catch (IOException | IndexException | RuntimeException e) {
            try {
                OwnerOnly.deleteTree(staged);
            } catch (IOException left) {
                // What is left is named DEST.partial-PID, never DEST: nothing takes it for a backup.
                e.addSuppressed(left);
            }
            throw e;
        }
        return report;
    }

    private static Report copyInto(Path source, Path dest, Progress progress) throws IOException, IndexException {
        OwnerOnly.directories(dest);
        Path index = dest.resolve("index.sqlite");
        SqliteIndex.snapshot(source.resolve("index.sqlite"), index);
        long[] counts = new long[3];
        List<MerkleHash> missing = new ArrayList<>();
        Bucket from = LocalBucket.beside(source.resolve("bucket"));
        Bucket to = new LocalBucket(dest.resolve("bucket"));
        // Measured right after the snapshot: every registration and bucket write it holds wrote its record before its
        // commit.
        Map<String, Long> records = RecordLog.sizes(from, Registrations.PREFIX);
        records.putAll(RecordLog.sizes(from, BucketChanges.PREFIX));
        try (SqliteIndex copy = new SqliteIndex(index, 1)) {
            Map<String, Long> rows = copy.scans().rowCounts();
            progress.stage("xorbs", rows.getOrDefault("xorbs", -1L));
            copyEach(copy, true, from, to, XorbIngest::key, counts, missing, progress);
            progress.stage("shards", rows.getOrDefault("shards", -1L));
            copyEach(copy, false, from, to, ShardRegistration::key, counts, missing, progress);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        RecordLog.copy(from, to, records);
        for (String file : List.of(Secrets.FILE, Users.FILE, org.openxet.storage.FileAuthStore.KEYS)) {
            if (Files.exists(source.resolve(file))) {
                Files.copy(source.resolve(file), dest.resolve(file), StandardCopyOption.COPY_ATTRIBUTES);
            }
        }
        for (String file : List.of("index.sqlite", Secrets.FILE, Users.FILE, org.openxet.storage.FileAuthStore.KEYS)) {
            if (Files.exists(dest.resolve(file))) {
                try (FileChannel ch = FileChannel.open(dest.resolve(file), StandardOpenOption.WRITE)) {
                    ch.force(true);
                }
            }
        }
        return new Report(Files.size(index), counts[0], counts[1], counts[2], List.copyOf(missing));
    }

    private static void copyEach(Index index, boolean xorbs, Bucket from, Bucket to, Function<MerkleHash, String> key,
                                 long[] counts, List<MerkleHash> missing, Progress progress) throws IndexException {
        java.util.function.Consumer<IndexScans.Stored> each = o -> {
            try {
                String k = key.apply(o.hash());
                if (from.size(k).isEmpty()) {
                    missing.add(o.hash());
                    return;
                }
                byte[] object = from.read(k);
                to.put(k, object); // written to a temp file, fsynced, renamed: a crash leaves no partial object
                counts[xorbs ? 0 : 1]++;
                counts[2] += object.length;
                progress.item(object.length);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
        if (xorbs) {
            index.scans().eachXorb(each);
        } else {
            index.scans().eachShard(each);
        }
    }
}
