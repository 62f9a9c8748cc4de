package org.openxet.service;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.openxet.protocol.InvalidHashException;
import org.openxet.protocol.MerkleHash;
import org.openxet.storage.BucketRepos;
import org.openxet.storage.Index;
import org.openxet.storage.IndexException;

import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A bucket's NDJSON batch call ({@code POST /api/buckets/{id}/batch}), one JSON object a line, as both clients write
 * it (docs/PROTOCOL.md §12): {@code addFile {path, xetHash, mtime?, contentType?}},
 * {@code copyFile {path, xetHash, sourceRepoType, sourceRepoId}}, {@code deleteFile {path}}. The clients send no
 * size: each file's size is the index's record of that Xet hash in the scope the line names (the bucket's own for an
 * add, the source repository's for a copy, which the user must be able to read). A line whose path, hash or source is
 * wrong, or whose hash that scope cannot see, fails alone; the others are applied, in order, in one transaction.
 */
public final class BucketBatch {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The repository types a copy may name (huggingface_hub {@code _BucketCopyFile.source_repo_type}). */
    private static final Set<String> SOURCE_TYPES = Set.of("model", "dataset", "space", "bucket");
    /** Longest content type kept: RFC 6838 caps a type and a subtype at 127 characters each. */
    static final int MAX_CONTENT_TYPE = 255;
    /**
     * 9999-12-31T23:59:59.999Z: the latest time the listings can show. huggingface_hub parses them with a four-digit
     * year ({@code parse_datetime}); one file stored with a later mtime made every listing of its bucket fail there.
     */
    static final long MAX_MTIME = 253_402_300_799_999L;
    /**
     * Longest line: a line holds one path (at most {@link BucketPaths#MAX_BYTES}, six bytes a character when
     * escaped), a hash and a few short fields. Each line is parsed into a tree, which costs 20 to 30 times its bytes
     * outside the upload budget: unbounded, one 16 MiB line of {@code [{},{},...]} was half a gigabyte of heap.
     */
    static final int MAX_LINE_BYTES = 64 * 1024;

    /** A line that failed, and why (the answer's {@code failed[]}: huggingface.js reads {@code path}). */
    public record Failure(String path, String error) {
    }

    /** The answer's {@code processed}, {@code succeeded} and {@code failed}; {@code success} when none failed. */
    public record Result(int processed, int succeeded, List<Failure> failed) {
        public boolean success() {
            return failed.isEmpty();
        }
    }

    /** The body is not NDJSON objects, or is larger than the limits: the whole request is refused, nothing applied. */
    public static final class Refused extends Exception {
        private final boolean tooLarge;

        Refused(String message, boolean tooLarge) {
            super(message);
            this.tooLarge = tooLarge;
        }

        /** True when a limit was exceeded (413); false for a malformed body (400). */
        public boolean tooLarge() {
            return tooLarge;
        }
    }

    /** A parsed line: what it asks, or why it cannot be done ({@code problem} non-null). */
    private record Line(String type, String path, MerkleHash hash, Long mtime, String contentType, String scope,
                        String problem) {
        static Line failed(String path, String problem) {
            return new Line(null, path, null, null, null, null, problem);
        }
    }

    private final Index index;
    private final BucketChanges records;
    private final Clock clock;
    private final int maxLines;

    public BucketBatch(Index index, BucketChanges records, Clock clock, int maxLines) {
        this.index = index;
        this.records = records;
        this.clock = clock;
        this.maxLines = maxLines;
    }

    /**
     * Parses {@code body[0, length)} and applies it to {@code bucket} for {@code user}, who may write there; the
     * write's record ({@link BucketChanges}) is durable when this returns.
     */
    public Result apply(String bucket, Users.User user, byte[] body, int length)
            throws Refused, IndexException, IOException {
        String own = BucketPaths.scope(bucket);
        List<Line> lines = parse(body, length, user, own);
        Map<String, Set<MerkleHash>> askedByScope = new LinkedHashMap<>();
        for (Line l : lines) {
            if (l.problem() == null && l.hash() != null && !l.hash().isZero()) {
                askedByScope.computeIfAbsent(l.scope(), k -> new HashSet<>()).add(l.hash());
            }
        }
        Map<String, Map<MerkleHash, Long>> sizes = new HashMap<>();
        for (var e : askedByScope.entrySet()) {
            sizes.put(e.getKey(), index.bucketRepos().visibleSizes(e.getKey(), e.getValue()));
        }
        long now = clock.millis();
        List<BucketRepos.Change> changes = new ArrayList<>();
        List<Failure> failed = new ArrayList<>();
        for (Line l : lines) {
            if (l.problem() != null) {
                failed.add(new Failure(l.path(), l.problem()));
                continue;
            }
            if (l.type().equals("deleteFile")) {
                changes.add(new BucketRepos.Delete(l.path()));
                continue;
            }
            // The empty file has the zero hash and no record (§1.5): the JS client registers no file for it.
            Long size = l.hash().isZero() ? Long.valueOf(0) : sizes.getOrDefault(l.scope(), Map.of()).get(l.hash());
            if (size == null) {
                failed.add(new Failure(l.path(), "file " + l.hash().hex() + " not found in " + l.scope()
                        + (l.type().equals("addFile") ? ": upload it with a write token of this bucket first" : "")));
                continue;
            }
            changes.add(new BucketRepos.Put(l.path(), l.hash(), size, l.mtime() == null ? now : l.mtime(),
                    l.contentType(), !l.scope().equals(own)));
        }
        if (!changes.isEmpty()) {
            index.bucketRepos().apply(bucket, changes, now, records::write);
        }
        return new Result(lines.size(), lines.size() - failed.size(), failed);
    }

    private List<Line> parse(byte[] body, int length, Users.User user, String own) throws Refused {
        List<Line> lines = new ArrayList<>();
        int start = 0;
        while (start < length) {
            int end = start;
            while (end < length && body[end] != '\n') end++;
            if (!blank(body, start, end)) {
                if (lines.size() == maxLines) {
                    throw new Refused("more than " + maxLines + " lines in one batch (openxet.buckets.batch.lines)", true);
                }
                if (end - start > MAX_LINE_BYTES) {
                    throw new Refused("line " + (lines.size() + 1) + " is longer than " + MAX_LINE_BYTES + " bytes",
                            false);
                }
                lines.add(line(body, start, end, lines.size() + 1, user, own));
            }
            start = end + 1;
        }
        return lines;
    }

    private static boolean blank(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] != ' ' && b[i] != '\t' && b[i] != '\r') return false;
        }
        return true;
    }

    private static Line line(byte[] body, int from, int to, int number, Users.User user, String own) throws Refused {
        JsonNode n;
        try {
            n = JSON.readTree(body, from, to - from);
        } catch (JsonProcessingException e) {
            throw new Refused("line " + number + " is not JSON: " + e.getOriginalMessage(), false);
        } catch (java.io.IOException e) {
            throw new Refused("line " + number + " cannot be read: " + e.getMessage(), false);
        }
        if (n == null || !n.isObject()) {
            throw new Refused("line " + number + " is not a JSON object", false);
        }
        String path = n.path("path").isTextual() ? n.get("path").asText() : null;
        String type = n.path("type").asText("");
        if (!type.equals("addFile") && !type.equals("copyFile") && !type.equals("deleteFile")) {
            return Line.failed(path, "unknown operation type '" + type + "' (addFile, copyFile or deleteFile)");
        }
        String pathProblem = BucketPaths.problem(path);
        if (pathProblem != null) return Line.failed(path, pathProblem);
        if (type.equals("deleteFile")) return new Line(type, path, null, null, null, null, null);

        MerkleHash hash;
        try {
            hash = MerkleHash.parse(n.path("xetHash").asText(""));
        } catch (InvalidHashException e) {
            return Line.failed(path, "xetHash is not a Xet hash (64 hex digits)");
        }
        if (type.equals("copyFile")) {
            String sourceType = n.path("sourceRepoType").asText("");
            String sourceId = n.path("sourceRepoId").asText("");
            if (!SOURCE_TYPES.contains(sourceType) || !BucketPaths.REPO_ID.matcher(sourceId).matches()) {
                return Line.failed(path, "sourceRepoType must be model, dataset, space or bucket and sourceRepoId"
                        + " a namespace/name");
            }
            String source = sourceType + "s/" + sourceId;
            // A repository the user cannot read is one whose files cannot be found: the same answer as a wrong hash.
            if (!user.allows(source, Access.READ)) {
                return Line.failed(path, "file " + hash.hex() + " not found in " + source);
            }
            return new Line(type, path, hash, null, null, source, null);
        }
        JsonNode mtime = n.path("mtime");
        Long millis = null;
        if (!mtime.isMissingNode() && !mtime.isNull()) {
            if (!mtime.isIntegralNumber() || !mtime.canConvertToLong() || mtime.asLong() < 0
                    || mtime.asLong() > MAX_MTIME) {
                return Line.failed(path, "mtime must be epoch milliseconds up to 9999-12-31");
            }
            millis = mtime.asLong();
        }
        JsonNode ct = n.path("contentType");
        String contentType = null;
        if (!ct.isMissingNode() && !ct.isNull()) {
            contentType = ct.isTextual() ? ct.asText() : "";
            if (contentType.isEmpty() || contentType.length() > MAX_CONTENT_TYPE
                    || contentType.chars().anyMatch(c -> c < 0x20 || c >= 0x7f)) {
                return Line.failed(path, "contentType must be printable ASCII of 1 to " + MAX_CONTENT_TYPE + " characters");
            }
        }
        return new Line(type, path, hash, millis, contentType, own, null);
    }
}
