package org.openxet.http;

import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import org.openxet.protocol.InvalidHashException;
import org.openxet.protocol.MerkleHash;
import org.openxet.service.FileChunkHashes;
import org.openxet.service.Grant;
import org.openxet.service.ReconstructionPlanner;
import org.openxet.service.ReconstructionPlanner.Plan;
import org.openxet.service.Services;
import org.openxet.service.SignedUrls;
import org.openxet.service.Slots;
import org.openxet.storage.FileRecord;

import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /v2/reconstructions/{file_id}}, {@code GET /v1/reconstructions/{file_id}}, the v1 batch query and
 * {@code HEAD /v1/files/{file_id}} (§5.4–§5.6). A file not visible to the token's scope is a 404, exactly like an
 * unknown one: a token learns nothing about other scopes' files.
 */
final class ReconstructionRoutes {
    /** The byte ranges a range edit will change (§5.9). */
    private static final HeaderName X_RANGE_DIRTY = HeaderNames.create("X-Range-Dirty");
    /** How long a file-chunk-hashes request waits for a slot before a 503 (the clients retry it). */
    private static final Duration CHUNK_HASHES_WAIT = Duration.ofSeconds(30);

    private final Services services;
    private final ReconstructionPlanner planner;
    private final SignedUrls urls;
    private final AnswerWriter writer;
    private final FileChunkHashes chunkHashes;
    /**
     * At most one file-chunk-hashes answer per CPU at a time: it hashes a whole file's merkle tree, about 0.26 s of
     * CPU for 900,000 chunks (a 57 GB file; JMH {@code FileChunkHashesBench}) against 15 ms for the same file's full
     * reconstruction, so a few requests for huge files must not take every core from the downloads.
     */
    private final Slots chunkHashSlots = new Slots(Runtime.getRuntime().availableProcessors(), "file-chunk-hashes", false);

    ReconstructionRoutes(Services services, SignedUrls urls) {
        this.services = services;
        this.planner = new ReconstructionPlanner(services.index());
        this.urls = urls;
        this.writer = new AnswerWriter(services.config().answerWriters());
        this.chunkHashes = new FileChunkHashes(services.index());
    }

    void register(RouteTable routes) {
        routes.add(Method.GET, "/v2/reconstructions/{file_id}", RouteTable.Guard.READ, (req, res, g) -> answer(req, res, g, 2));
        routes.add(Method.GET, "/v1/reconstructions/{file_id}", RouteTable.Guard.READ, (req, res, g) -> answer(req, res, g, 1));
        routes.add(Method.GET, "/v1/reconstructions", RouteTable.Guard.READ, this::batch);
        routes.add(Method.HEAD, "/v1/files/{file_id}", RouteTable.Guard.READ, this::head);
        routes.add(Method.GET, "/v2/file-chunk-hashes/{file_id}", RouteTable.Guard.READ, this::chunkHashes);
    }

    private String base(ServerRequest req) throws HttpError {
        return PublicUrl.of(req, services.config().publicUrl());
    }

    private FileRecord visibleFile(ServerRequest req, Grant grant) throws Exception {
        MerkleHash id = XorbRoutes.hashParam(req, "file_id");
        return planner.file(id, grant.scope()).orElseThrow(() -> HttpError.notFound("file " + id + " not found"));
    }

    private void answer(ServerRequest req, ServerResponse res, Grant grant, int version) throws Exception {
        ReconstructionPlanner.ByteRange range = RangeHeader.single(req.headers().first(HeaderNames.RANGE).orElse(null));
        FileRecord file = visibleFile(req, grant);
        Plan plan;
        try {
            plan = planner.plan(file, range);
        } catch (ReconstructionPlanner.NotSatisfiable e) {
            res.header(HeaderNames.CONTENT_RANGE, "bytes */" + file.size());
            throw new HttpError(416, "range_not_satisfiable", e.getMessage());
        }
        UrlSigner signer = new UrlSigner(urls, base(req), grant.scope(), urls.expiry());
        res.status(200);
        res.header(HeaderNames.CONTENT_TYPE, "application/json");
        AnswerWriter.Body body = new AnswerWriter.Body() {
            private long length = -1;

            @Override
            public void length(long bytes) {
                res.contentLength(bytes);
                length = bytes;
            }

            @Override
            public OutputStream stream() throws IOException {
                return length < 0 ? res.outputStream() : ResponseChannel.body(req, res, length);
            }
        };
        if (version == 2) {
            writer.writeV2(body, plan, signer);
        } else {
            writer.writeV1(body, plan, signer);
        }
    }

    /** §5.6: invalid ids are dropped (400 if none is valid), unknown or invisible files are left out, no Range. */
    /**
     * Terms one batch answer may hold in all: its ids fit the 16 KiB request line (about 220), and each file may be
     * huge, so the answer is bounded by what it plans, not by what it names. No stock client's upload or download
     * uses the batch route (§5.1); one file of any size still has its own route.
     */
    static final int MAX_BATCH_TERMS = 1 << 15;

    private void batch(ServerRequest req, ServerResponse res, Grant grant) throws Exception {
        List<String> ids = req.query().all("file_id", List::of);
        List<MerkleHash> valid = new ArrayList<>();
        for (String id : ids) {
            try {
                valid.add(MerkleHash.parse(id));
            } catch (InvalidHashException ignored) {
                // dropped, as the batch API specifies
            }
        }
        if (valid.isEmpty()) {
            throw HttpError.badRequest("no valid file_id in the query");
        }
        Map<MerkleHash, Plan> plans = new LinkedHashMap<>();
        long terms = 0;
        for (MerkleHash id : valid) {
            var file = planner.file(id, grant.scope());
            if (file.isPresent() && !plans.containsKey(id)) {
                terms += file.get().termCount();
                if (terms > MAX_BATCH_TERMS) {
                    throw HttpError.badRequest("the batch's files hold more than " + MAX_BATCH_TERMS
                            + " terms; ask for large files one at a time (GET /v1/reconstructions/{file_id})");
                }
                plans.put(id, planner.plan(file.get(), null));
            }
        }
        // One fetch_info over all files: per xorb, every file's descriptors merged again.
        Map<MerkleHash, List<int[]>> perXorb = new LinkedHashMap<>();
        for (Plan p : plans.values()) {
            for (int x : p.xorbOrder()) {
                perXorb.computeIfAbsent(p.file().xorbs()[x], k -> new ArrayList<>()).add(p.fetch()[x]);
            }
        }
        byte[][] hex = new byte[perXorb.size()][];
        int[][] fetch = new int[perXorb.size()][];
        int[] order = new int[perXorb.size()];
        int i = 0;
        for (var e : perXorb.entrySet()) {
            hex[i] = e.getKey().hexBytes();
            int[] all = new int[e.getValue().stream().mapToInt(l -> l.length).sum()];
            int at = 0;
            for (int[] l : e.getValue()) {
                System.arraycopy(l, 0, all, at, l.length);
                at += l.length;
            }
            fetch[i] = ReconstructionPlanner.mergeDescriptors(all);
            order[i] = i;
            i++;
        }
        UrlSigner signer = new UrlSigner(urls, base(req), grant.scope(), urls.expiry());
        res.status(200);
        res.header(HeaderNames.CONTENT_TYPE, "application/json");
        try (OutputStream out = res.outputStream()) {
            JsonBytes json = new JsonBytes(out, JsonBytes.FLUSH_AT + 16 * 1024);
            json.raw(JsonBytes.ascii("{\"files\":{"));
            boolean first = true;
            for (var e : plans.entrySet()) {
                if (!first) json.ch(',');
                first = false;
                json.hash(e.getKey()).raw(JsonBytes.ascii(":["));
                ReconstructionJson.writeTerms(json, e.getValue(), ReconstructionJson.xorbHex(e.getValue().file()));
                json.ch(']');
            }
            json.raw(JsonBytes.ascii("},\"fetch_info\":{"));
            ReconstructionJson.writeFetchInfo(json, order, fetch, hex, signer);
            json.raw(JsonBytes.ascii("}}"));
            json.flush();
        }
    }

    /** The byte ranges an {@code X-Range-Dirty} header names, as half-open ranges; a missing or malformed one is 400. */
    static List<FileChunkHashes.Range> dirtyRanges(String header) throws HttpError {
        if (header == null) {
            throw HttpError.badRequest("X-Range-Dirty is required: bytes=S-E,... (the byte ranges to be edited)");
        }
        List<FileChunkHashes.Range> dirty = new ArrayList<>();
        for (ReconstructionPlanner.ByteRange r : RangeHeader.parse(header)) {
            if (r.suffix() || r.endInclusive() == ReconstructionPlanner.ByteRange.OPEN || r.endInclusive() < r.start()
                    || r.endInclusive() == Long.MAX_VALUE) {
                throw HttpError.badRequest("X-Range-Dirty takes closed ranges S-E with S <= E: " + header);
            }
            dirty.add(new FileChunkHashes.Range(r.start(), r.endInclusive() + 1));
        }
        return dirty;
    }

    /**
     * §5.9: the windows to re-chunk around the byte ranges {@code X-Range-Dirty} names ({@code bytes=S-E,...}, ends
     * inclusive, as the clients send it), the partial trees of the gaps and the gaps' terms' verification hashes.
     */
    private void chunkHashes(ServerRequest req, ServerResponse res, Grant grant) throws Exception {
        FileRecord file = visibleFile(req, grant);
        List<FileChunkHashes.Range> dirty = dirtyRanges(req.headers().first(X_RANGE_DIRTY).orElse(null));
        FileChunkHashes.Answer answer;
        try (Slots.Held ignored = chunkHashSlots.acquire(CHUNK_HASHES_WAIT)) {
            answer = chunkHashes.answer(file, dirty);
        } catch (FileChunkHashes.NothingDirty e) {
            throw HttpError.badRequest(e.getMessage());
        }
        JsonBytes json = new JsonBytes(null, 4096);
        ReconstructionJson.writeChunkHashes(json, answer);
        res.status(200);
        res.header(HeaderNames.CONTENT_TYPE, "application/json");
        res.send(json.toByteArray());
    }

    private void head(ServerRequest req, ServerResponse res, Grant grant) throws Exception {
        FileRecord file = visibleFile(req, grant);
        res.status(200);
        res.header(HeaderNames.CONTENT_LENGTH, Long.toString(file.size()));
        res.send();
    }
}
