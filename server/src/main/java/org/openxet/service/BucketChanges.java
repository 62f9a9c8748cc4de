package org.openxet.service;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import org.openxet.protocol.FormatException;
import org.openxet.protocol.MerkleHash;
import org.openxet.storage.Bucket;
import org.openxet.storage.BucketRepos;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The blob bucket's own record of every write to a bucket repository (a create, a batch), written inside the write's
 * index transaction before its commit, so every acknowledged write has its record, and a backup's snapshot holds no
 * write without one. {@code openxet index rebuild} replays them after the shard registrations: every bucket with its
 * flags and times, every path with its hash, size, times and content type, and the grants of copied files.
 *
 * <p>A record is one JSON line {@code {bucket, seq, private, created_at, at, changes, deleted?}} in a
 * {@link RecordLog} under {@code bucket-changes/} (a sibling of {@link Registrations}' log, not a second kind of
 * line in it: the two replay in different orders, and an older reader of the registrations would count these lines
 * as torn ones); on S3 one object per write, {@code bucket-changes/<SHA-256 of the bucket id, hex>.<seq, 19 digits>}.
 * {@code seq} is the bucket's sequence number, assigned under the bucket row's lock in the index: the order of the
 * index's commits, whichever node made them. A write whose transaction then failed may leave a record of its number;
 * a later write reuses the number and its record comes later (later in a log, or the same object overwritten), so
 * the last record of a number is the one that counts. Only the last write of a bucket can be such a leftover:
 * rebuilt, it is applied (see docs/DESIGN.md "Bucket repositories").
 */
public final class BucketChanges implements AutoCloseable {
    public static final String PREFIX = "bucket-changes/";

    /** One change of a write: {@code op} is {@code put} or {@code delete}; a delete has no hash and no sizes. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Change(String op, String path, String xetHash, Long size, Long mtime, String contentType,
                         Boolean grant) {
    }

    /** One write of one bucket, as committed; {@code deleted}: the write deleted the bucket. */
    public record Record(String bucket, long seq, @JsonProperty("private") boolean isPrivate, long createdAt, long at,
                         List<Change> changes, @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean deleted) {
    }

    private final RecordLog log;

    public BucketChanges(Bucket bucket) {
        this.log = new RecordLog(bucket, PREFIX);
    }

    /** Records {@code applied}; durable when this returns ({@link BucketRepos.BeforeCommit}). */
    public void write(BucketRepos.Applied applied) throws IOException {
        log.write(objectKey(applied.name(), applied.seq()), record(applied));
    }

    @Override
    public void close() throws IOException {
        log.close();
    }

    static String objectKey(String bucket, long seq) {
        return PREFIX + RecordLog.digest(bucket) + "." + String.format("%019d", seq);
    }

    static Record record(BucketRepos.Applied a) {
        List<Change> changes = new ArrayList<>(a.changes().size());
        for (BucketRepos.Change c : a.changes()) {
            changes.add(switch (c) {
                case BucketRepos.Put p -> new Change("put", p.path(), p.xetHash().hex(), p.size(), p.mtime(),
                        p.contentType(), p.grant());
                case BucketRepos.Delete d -> new Change("delete", d.path(), null, null, null, null, null);
            });
        }
        return new Record(a.name(), a.seq(), a.isPrivate(), a.createdAt(), a.at(), changes, a.deletesBucket());
    }

    /** The write a record names; a record that names something no write can hold throws. */
    static BucketRepos.Applied applied(Record r) throws FormatException {
        if (r.bucket() == null || !BucketPaths.REPO_ID.matcher(r.bucket()).matches() || r.changes() == null) {
            throw new FormatException("not a bucket change record: " + r.bucket());
        }
        List<BucketRepos.Change> changes = new ArrayList<>(r.changes().size());
        for (Change c : r.changes()) {
            if (c == null || c.path() == null) throw new FormatException("a change without a path");
            if ("delete".equals(c.op())) {
                changes.add(new BucketRepos.Delete(c.path()));
            } else if ("put".equals(c.op()) && c.xetHash() != null && c.size() != null && c.mtime() != null) {
                changes.add(new BucketRepos.Put(c.path(), MerkleHash.parse(c.xetHash()), c.size(), c.mtime(),
                        c.contentType(), Boolean.TRUE.equals(c.grant())));
            } else {
                throw new FormatException("change of " + c.path() + ": unknown operation " + c.op());
            }
        }
        return new BucketRepos.Applied(r.bucket(), r.seq(), r.isPrivate(), r.createdAt(), r.at(), List.copyOf(changes),
                r.deleted());
    }

    /** What {@link #inOrder} read: the records to replay, and how many lines were torn. */
    public record Replay(List<Record> records, long unreadable) {
    }

    /**
     * Every record in the bucket, in the order to replay them: by bucket, then by sequence number, the last record
     * read of a number standing for it (read order: logs by start time, lines in order).
     */
    public static Replay inOrder(Bucket bucket) throws IOException {
        Map<String, Record> last = new LinkedHashMap<>();
        RecordLog.Reading read = RecordLog.each(bucket, PREFIX, Record.class,
                r -> last.put(r.bucket() + "\n" + r.seq(), r));
        List<Record> records = new ArrayList<>(last.values());
        records.sort(Comparator.comparing(Record::bucket, Comparator.nullsFirst(Comparator.naturalOrder()))
                .thenComparingLong(Record::seq));
        return new Replay(records, read.unreadable());
    }
}
