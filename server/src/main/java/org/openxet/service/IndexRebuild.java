package org.openxet.service;

import org.openxet.protocol.FormatException;
import org.openxet.protocol.InvalidHashException;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.shard.Shard;
import org.openxet.protocol.shard.ShardParser;
import org.openxet.protocol.xorb.ValidatedXorb;
import org.openxet.protocol.xorb.XorbValidator;
import org.openxet.storage.Bucket;
import org.openxet.storage.BucketRepos;
import org.openxet.storage.Index;
import org.openxet.storage.IndexException;
import org.openxet.storage.ShardCommit;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Recreates an index from its bucket alone ({@code openxet index rebuild}): every xorb object validated and
 * registered with the layout its bytes give, then every registration record ({@link Registrations}) in the order
 * they were made, each shard object parsed and validated against those layouts and registered under the record's
 * scope, exactly as its upload was (so a file registered again by a later shard ends as the later one left it), and
 * last every bucket repository write ({@link BucketChanges}) bucket by bucket in the order the index made them, so
 * each bucket ends with the rows, totals, times and copy grants it had.
 */
public final class IndexRebuild {
    /**
     * What was registered, the records whose shard object is gone ({@code orphanRecords}: a registration that failed
     * after writing its record, or a shard a crash's recovery removed; nothing was acknowledged for them), and the
     * objects that had to be skipped because they do not validate; the bucket repositories restored and the writes
     * replayed into them.
     */
    public record Report(long xorbs, long shards, long registrations, long files, long orphanRecords,
                         long unreadableRecords, long buckets, long bucketWrites, List<String> skipped) {
    }

    private IndexRebuild() {
    }

    public static Report rebuild(Index index, Bucket bucket, Progress progress) throws IOException, IndexException {
        List<String> skipped = new ArrayList<>();
        long xorbs = 0;
        List<String> xorbKeys = bucket.list("xorbs");
        progress.stage("xorbs", xorbKeys.size());
        try (XorbValidator validator = new XorbValidator()) {
            for (String key : xorbKeys) {
                var named = Bucket.hashAtEnd(key);
                if (named.isEmpty()) {
                    // Not a xorb (a stray file): listed and passed over, where it used to stop the rebuild part-way.
                    skipped.add(key + ": not a xorb's key (its name does not end in a hash)");
                    continue;
                }
                MerkleHash h = named.get();
                byte[] object = bucket.read(key);
                progress.item(object.length);
                try {
                    ValidatedXorb v = validator.validateStored(object, object.length, h);
                    if (index.putXorb(h, v.chunks(), object.length)) xorbs++;
                } catch (FormatException e) {
                    skipped.add(key + ": " + e.getMessage() + " (run openxet fsck on the old data, or upload it again)");
                }
            }
        }
        List<Registrations.Record> records = new ArrayList<>();
        RecordLog.Reading read = Registrations.each(bucket, records::add);
        // Stable: records of one log keep their order within a second.
        records.sort(Comparator.comparingLong(Registrations.Record::registeredAt));
        long shards = 0;
        long registrations = 0;
        long files = 0;
        long orphans = 0;
        progress.stage("registrations", records.size());
        for (Registrations.Record r : records) {
            progress.item(0);
            MerkleHash shardHash;
            try {
                shardHash = MerkleHash.parse(r.shard());
            } catch (InvalidHashException e) {
                skipped.add("registration of " + r.shard() + ": not a hash");
                continue;
            }
            String key = ShardRegistration.key(shardHash);
            if (bucket.size(key).isEmpty()) {
                orphans++;
                continue;
            }
            byte[] stored = bucket.read(key);
            try {
                Shard shard = ShardParser.parse(stored);
                ShardCommit commit = ShardValidation.validate(shard, index.xorbs(ShardValidation.referencedXorbs(shard)),
                        shardHash, r.scope(), stored.length, ShardRegistration.SILENT);
                boolean first = !index.hasShard(shardHash);
                index.registerShard(commit);
                if (first) shards++;
                registrations++;
                files += shard.files().size();
            } catch (FormatException e) {
                skipped.add("shard " + shardHash + " in " + r.scope() + ": " + e.getMessage());
            }
        }
        BucketChanges.Replay changes = BucketChanges.inOrder(bucket);
        progress.stage("bucket writes", changes.records().size());
        java.util.Set<String> buckets = new java.util.HashSet<>();
        long bucketWrites = 0;
        for (BucketChanges.Record r : changes.records()) {
            progress.item(0);
            BucketRepos.Applied applied;
            try {
                applied = BucketChanges.applied(r);
            } catch (FormatException e) {
                skipped.add("bucket write " + r.seq() + " of " + r.bucket() + ": " + e.getMessage());
                continue;
            }
            // A copy's grant needs the file: registered above, from the shards.
            index.bucketRepos().replay(applied);
            buckets.add(applied.name());
            bucketWrites++;
        }
        // The index now says what the records say: the next start has nothing to backfill.
        bucket.put(Registrations.BACKFILLED, new byte[0]);
        return new Report(xorbs, shards, registrations, files, orphans, read.unreadable() + changes.unreadable(),
                buckets.size(), bucketWrites, List.copyOf(skipped));
    }
}
