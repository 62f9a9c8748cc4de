package org.openxet.cli;

import org.openxet.protocol.MerkleHash;
import org.openxet.service.Fsck;
import org.openxet.service.ServerConfig;
import org.openxet.service.Services;
import org.openxet.storage.IndexException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code openxet fsck}: do the index and the bucket agree, and (with {@code --deep}) is every stored byte intact?
 * Reads only, takes no lock: it runs beside a serving node. Exit 0 when all is well, 1 when an object is damaged or
 * missing or a file cannot be reconstructed, 2 on a usage or storage error. One JSON line last.
 */
@Command(name = "fsck", description = {"Check that index and bucket agree: every registered xorb and shard object "
        + "exists with the size the index expects, every file's terms point at registered xorbs and chunk ranges "
        + "inside them, every path of a bucket repository names a file that bucket can read, at its size, and no object "
        + "is unknown to the index (reported, not removed: that is gc's job).",
        "--deep also reads every object and validates it (each chunk decoded and hashed against the xorb hash and "
        + "the index's layout; each shard parsed), at most --rate, so it can run while the server serves.",
        "Exit 0: all is well; 1: something is damaged or missing (the report names each object and each file, by "
        + "hash and scope, that can no longer be reconstructed). Prints one JSON line last."})
public final class FsckCommand implements Callable<Integer> {
    @Mixin
    StorageOptions storage;

    @Mixin
    ScrubOptions scrub;

    record Output(long xorbsChecked, long shardsChecked, long filesChecked, long bytesRead, boolean deep,
                  List<String> damaged, List<String> missing, List<String> filesAffected, List<String> unknownObjects,
                  List<Finding> findings, List<Affected> affected, long bucketEntriesChecked,
                  List<BrokenEntry> brokenBucketEntries) {
    }

    record BrokenEntry(String bucket, String path, String file, String why) {
        static BrokenEntry of(Fsck.BrokenBucketEntry b) {
            return new BrokenEntry(b.bucket(), b.path(), b.file().hex(), b.why());
        }
    }

    /** A finding as JSON: hashes as hex. */
    record Finding(String kind, String hash, String why) {
        static Finding of(Fsck.Finding f) {
            return new Finding(f.kind(), f.hash().hex(), f.why());
        }
    }

    record Affected(String file, List<String> scopes, String why) {
        static Affected of(Fsck.AffectedFile f) {
            return new Affected(f.file().hex(), f.scopes(), f.why());
        }
    }

    @Override
    public Integer call() throws Exception {
        long bytesPerSecond = scrub.bytesPerSecond();
        ServerConfig cfg = storage.load();
        if (cfg.storage().indexUrl().isEmpty()) DataDirs.withIndex(cfg.dataDir());
        Fsck.Report report;
        try (Services.Stores stores = Services.openStores(cfg); ProgressDisplay display = new ProgressDisplay("fsck")) {
            report = Fsck.check(stores.index(), stores.bucket(), scrub.deep, bytesPerSecond, display);
        } catch (IndexException e) {
            System.err.println("openxet fsck: " + e.getMessage());
            return 2;
        }
        for (Fsck.Finding f : report.missing()) System.out.println("missing " + f.kind() + " " + f.hash() + ": " + f.why());
        for (Fsck.Finding f : report.damaged()) System.out.println("damaged " + f.kind() + " " + f.hash() + ": " + f.why());
        for (Fsck.AffectedFile f : report.filesAffected()) {
            System.out.println("file " + f.file() + " (" + String.join(", ", f.scopes()) + ") cannot be reconstructed: "
                    + f.why());
        }
        for (Fsck.BrokenBucketEntry b : report.brokenBucketEntries()) {
            System.out.println("bucket " + b.bucket() + " path " + b.path() + " (file " + b.file() + "): " + b.why());
        }
        for (String key : report.unknownObjects()) System.out.println("unknown to the index (gc's to remove): " + key);
        List<Finding> findings = java.util.stream.Stream.concat(report.missing().stream(), report.damaged().stream())
                .map(Finding::of).toList();
        System.out.println(Json.line(new Output(report.xorbsChecked(), report.shardsChecked(), report.filesChecked(),
                report.bytesRead(), report.deep(), hexes(report.damaged()), hexes(report.missing()),
                report.filesAffected().stream().map(f -> f.file().hex()).toList(), report.unknownObjects(), findings,
                report.filesAffected().stream().map(Affected::of).toList(), report.bucketEntriesChecked(),
                report.brokenBucketEntries().stream().map(BrokenEntry::of).toList())));
        return report.clean() ? 0 : 1;
    }

    private static List<String> hexes(List<Fsck.Finding> findings) {
        return findings.stream().map(Fsck.Finding::hash).map(MerkleHash::hex).toList();
    }
}
