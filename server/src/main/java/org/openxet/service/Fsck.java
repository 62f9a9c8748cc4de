package org.openxet.service;

import org.openxet.protocol.FormatException;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.shard.ShardFormatException;
import org.openxet.protocol.shard.ShardParser;
import org.openxet.protocol.xorb.ChunkTable;
import org.openxet.protocol.xorb.ValidatedXorb;
import org.openxet.protocol.xorb.XorbValidator;
import org.openxet.storage.Bucket;
import org.openxet.storage.BucketRepos;
import org.openxet.storage.FileRecord;
import org.openxet.storage.Index;
import org.openxet.storage.IndexException;
import org.openxet.storage.IndexScans;
import org.openxet.storage.XorbLayout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Checks that the index and the bucket agree ({@code openxet fsck}): every registered xorb and shard object exists
 * with the size the index expects; every file's terms name registered xorbs, chunk ranges inside them and the byte
 * ranges their layouts give; every path of a bucket repository names a file its bucket's scope sees, at its size; no
 * object is unknown to the index (reported only: removing is gc's job). With
 * {@code deep}, every object is also read and validated as an upload is (each chunk decoded and hashed, the xorb hash
 * recomputed, the chunk table compared with the index's; each shard parsed), at most {@code bytesPerSecond}, so it
 * can run beside a serving node (a scrub). Reads only: it changes nothing.
 *
 * <p>Memory stays bounded at any index size: the index is read a page of rows at a time ({@link IndexScans#SCAN_PAGE}),
 * one object is in memory at a time, and only the damaged and missing hashes are kept.
 */
public final class Fsck {
    /**
     * A file that can no longer be reconstructed: its hash, the scopes that see it, why, and the damaged or missing
     * xorb it reads (null when its terms do not fit a healthy xorb's layout).
     */
    public record AffectedFile(MerkleHash file, List<String> scopes, String why, MerkleHash badXorb) {
    }

    private record Problem(String why, MerkleHash badXorb) {
    }

    /** A damaged or missing object, and what is wrong with it. */
    public record Finding(String kind, MerkleHash hash, String why) {
    }

    /** A path of a bucket repository whose file its bucket cannot read, or whose size is not the file's. */
    public record BrokenBucketEntry(String bucket, String path, MerkleHash file, String why) {
    }

    public record Report(long xorbsChecked, long shardsChecked, long filesChecked, long bytesRead, boolean deep,
                         List<Finding> damaged, List<Finding> missing, List<AffectedFile> filesAffected,
                         List<String> unknownObjects, long bucketEntriesChecked,
                         List<BrokenBucketEntry> brokenBucketEntries) {
        public boolean clean() {
            return damaged.isEmpty() && missing.isEmpty() && filesAffected.isEmpty() && brokenBucketEntries.isEmpty();
        }
    }

    private final Index index;
    private final Bucket bucket;
    private final boolean deep;
    private final Throttle throttle;
    private final Progress progress;
    private final List<Finding> damaged = new ArrayList<>();
    private final List<Finding> missing = new ArrayList<>();
    /** Xorbs no file may use any more: damaged or missing. */
    private final Set<MerkleHash> badXorbs = new LinkedHashSet<>();
    private long bytesRead;

    private Fsck(Index index, Bucket bucket, boolean deep, long bytesPerSecond, Progress progress) {
        this.index = index;
        this.bucket = bucket;
        this.deep = deep;
        this.throttle = new Throttle(bytesPerSecond);
        this.progress = progress;
    }

    /** Checks everything; {@code bytesPerSecond} bounds the deep reads (0: no bound). */
    public static Report check(Index index, Bucket bucket, boolean deep, long bytesPerSecond, Progress progress)
            throws IndexException, IOException {
        return new Fsck(index, bucket, deep, bytesPerSecond, progress).run();
    }

    private Report run() throws IndexException, IOException {
        long[] counts = new long[3];
        Map<String, Long> rows = index.scans().rowCounts();
        try (XorbValidator validator = new XorbValidator()) {
            progress.stage("xorbs", rows.getOrDefault("xorbs", -1L));
            index.scans().eachXorb(x -> {
                counts[0]++;
                checkXorb(x, validator);
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        progress.stage("shards", rows.getOrDefault("shards", -1L));
        try {
            index.scans().eachShard(s -> {
                counts[1]++;
                checkShard(s);
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        progress.stage("files", rows.getOrDefault("files", -1L));
        Map<MerkleHash, Problem> problems = new LinkedHashMap<>();
        List<IndexException> failed = new ArrayList<>();
        index.scans().eachFile(f -> {
            counts[2]++;
            progress.item(0);
            try {
                Problem p = fileProblem(f);
                if (p != null) problems.put(f.fileHash(), p);
            } catch (IndexException e) {
                if (failed.isEmpty()) failed.add(e);
            }
        });
        if (!failed.isEmpty()) throw failed.getFirst();
        Map<MerkleHash, List<String>> scopes = index.scans().scopesOf(problems.keySet());
        List<AffectedFile> affected = new ArrayList<>();
        problems.forEach((file, p) -> affected.add(new AffectedFile(file,
                scopes.getOrDefault(file, List.of()).stream().sorted().toList(), p.why(), p.badXorb())));
        progress.stage("bucket entries", index.bucketRepos().rowCounts().getOrDefault("bucket_repo_files", -1L));
        long[] entries = new long[1];
        List<BrokenBucketEntry> broken = new ArrayList<>();
        index.bucketRepos().eachEntry(l -> {
            entries[0]++;
            progress.item(0);
            try {
                String why = entryProblem(l);
                if (why != null) broken.add(new BrokenBucketEntry(l.bucket(), l.entry().path(), l.entry().xetHash(), why));
            } catch (IndexException e) {
                if (failed.isEmpty()) failed.add(e);
            }
        });
        if (!failed.isEmpty()) throw failed.getFirst();
        progress.stage("unknown objects", -1);
        List<String> unknown = new ArrayList<>();
        for (String key : bucket.list("xorbs")) {
            progress.item(0);
            Optional<MerkleHash> h = Bucket.hashAtEnd(key);
            if (h.isEmpty() || !index.hasXorb(h.get())) unknown.add(key);
        }
        for (String key : bucket.list("shards")) {
            progress.item(0);
            Optional<MerkleHash> h = Bucket.hashAtEnd(key);
            if (h.isEmpty() || !index.hasShard(h.get())) unknown.add(key);
        }
        return new Report(counts[0], counts[1], counts[2], bytesRead, deep, List.copyOf(damaged), List.copyOf(missing),
                List.copyOf(affected), List.copyOf(unknown), entries[0], List.copyOf(broken));
    }

    /**
     * Why a bucket's read tokens cannot download its entry's file as listed, or null: the file must be registered
     * in (or copied to) the bucket's scope with the size the entry states. The empty file has the zero hash and no record.
     */
    private String entryProblem(BucketRepos.Located l) throws IndexException {
        BucketRepos.Entry e = l.entry();
        if (e.xetHash().isZero()) return e.size() == 0 ? null : "the empty file's hash with a size of " + e.size();
        String scope = BucketPaths.scope(l.bucket());
        Long size = index.bucketRepos().visibleSizes(scope, List.of(e.xetHash())).get(e.xetHash());
        if (size == null) return "its file is not registered in " + scope;
        return size == e.size() ? null : "listed with " + e.size() + " bytes, the file has " + size;
    }

    private void checkXorb(IndexScans.Stored x, XorbValidator validator) {
        String key = XorbIngest.key(x.hash());
        try {
            if (presentAtSize("xorb", x, key) && deep) {
                String why = validateXorb(validator, read(key), x.hash());
                if (why != null) bad(damaged, "xorb", x.hash(), why);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Whether the object at {@code key} exists with the size the index expects; records it missing or damaged
     * otherwise. Counts the item for the progress display, with its bytes when a deep check reads them next.
     */
    private boolean presentAtSize(String kind, IndexScans.Stored o, String key) throws IOException {
        Optional<Long> size = bucket.size(key);
        progress.item(deep && size.isPresent() ? size.get() : 0);
        if (size.isEmpty()) {
            bad(missing, kind, o.hash(), "no object at " + key);
            return false;
        }
        if (size.get() != o.storedBytes()) {
            bad(damaged, kind, o.hash(), "object has " + size.get() + " bytes, the index expects " + o.storedBytes());
            return false;
        }
        return true;
    }

    /** Null when the object is the xorb the index registered, else what differs. */
    private String validateXorb(XorbValidator validator, byte[] object, MerkleHash hash) {
        ValidatedXorb v;
        try {
            v = validator.validateStored(object, object.length, hash);
        } catch (FormatException e) {
            return "invalid: " + e.getMessage();
        }
        try {
            Optional<XorbLayout> layout = index.xorb(hash);
            if (layout.isEmpty()) return null; // removed meanwhile (gc): nothing to compare
            ChunkTable a = layout.get().chunks();
            ChunkTable b = v.chunks();
            if (a.count() != b.count() || !Arrays.equals(a.hashes(), b.hashes()) || !Arrays.equals(a.byteEnds(), b.byteEnds())
                    || !Arrays.equals(a.unpackedEnds(), b.unpackedEnds())) {
                return "its chunk table differs from the index's";
            }
            return null;
        } catch (IndexException e) {
            throw new UncheckedIOException(new IOException(e.getMessage(), e));
        }
    }

    private void checkShard(IndexScans.Stored s) {
        String key = ShardRegistration.key(s.hash());
        try {
            if (presentAtSize("shard", s, key) && deep) {
                byte[] object = read(key);
                try {
                    // Stored re-serialized with its footer's timestamp (ShardRegistration), so its bytes do not hash
                    // to its key (the upload's hash): parsing is the check.
                    ShardParser.parse(object);
                } catch (ShardFormatException e) {
                    bad(damaged, "shard", s.hash(), "invalid: " + e.getMessage());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private byte[] read(String key) throws IOException {
        byte[] object = bucket.read(key);
        bytesRead += object.length;
        throttle.took(object.length);
        return object;
    }

    /** Why the file cannot be reconstructed as registered, or null. */
    private Problem fileProblem(FileRecord f) throws IndexException {
        Map<MerkleHash, XorbLayout> layouts = index.xorbs(List.of(f.xorbs()));
        for (int t = 0; t < f.termCount(); t++) {
            MerkleHash x = f.xorbs()[f.term(t, FileRecord.XORB)];
            if (badXorbs.contains(x)) return new Problem("term " + t + " reads xorb " + x + ", which is damaged or missing", x);
            XorbLayout layout = layouts.get(x);
            if (layout == null) {
                // Not registered, or quarantined by repair and not uploaded again yet.
                return new Problem("term " + t + " names xorb " + x + ", which is not registered or is quarantined", x);
            }
            int a = f.term(t, FileRecord.CHUNK_START);
            int b = f.term(t, FileRecord.CHUNK_END);
            ChunkTable chunks = layout.chunks();
            if (a < 0 || b <= a || b > chunks.count()) {
                return new Problem("term " + t + " reads chunks [" + a + ", " + b + ") of xorb " + x + ", which has "
                        + chunks.count(), null);
            }
            if (f.term(t, FileRecord.BYTE_START) != chunks.byteRangeStart(a)
                    || f.term(t, FileRecord.BYTE_END) != chunks.byteRangeEnd(b)) {
                return new Problem("term " + t + "'s byte range is not that of chunks [" + a + ", " + b + ") of xorb " + x,
                        null);
            }
        }
        return null;
    }

    private void bad(List<Finding> list, String kind, MerkleHash hash, String why) {
        list.add(new Finding(kind, hash, why));
        if (kind.equals("xorb")) badXorbs.add(hash);
    }

    /** Sleeps so that reads average at most the given rate (0: never). */
    private static final class Throttle {
        private final long bytesPerSecond;
        private final long startNanos = System.nanoTime();
        private long bytes;

        Throttle(long bytesPerSecond) {
            this.bytesPerSecond = bytesPerSecond;
        }

        void took(long n) {
            if (bytesPerSecond <= 0) return;
            bytes += n;
            long dueNanos = startNanos + (long) (bytes * 1e9 / bytesPerSecond);
            long wait = dueNanos - System.nanoTime();
            if (wait > 0) {
                try {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
