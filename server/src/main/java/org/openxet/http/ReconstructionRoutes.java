package org.openxet.http;

import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import org.openxet.protocol.InvalidHashException;
import org.openxet.protocol.MerkleHash;
import org.openxet.service.Access;
import org.openxet.service.BatchPlan;
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
import java.util.List;

/**
 * {@code GET /v2/reconstructions/{file_id}}, {@code GET /v1/reconstructions/{file_id}}, the v1 batch query and
 * {@code HEAD /v1/files/{file_id}} (§5.4–§5.6; older clients' paths for v1 and the batch in {@link ClientPaths}). A
 * file not visible to the token's scope is a 404, exactly like an unknown one: a token learns nothing about other
 * scopes' files.
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
        routes.cas(Method.GET, "/v2/reconstructions/{file_id}", Access.READ, (req, res, g) -> answer(req, res, g, 2));
        for (String path : ClientPaths.RECONSTRUCTION_V1) {
            routes.cas(Method.GET, path, Access.READ, (req, res, g) -> answer(req, res, g, 1));
        }
        for (String path : ClientPaths.BATCH_RECONSTRUCTION) routes.cas(Method.GET, path, Access.READ, this::batch);
        routes.cas(Method.HEAD, "/v1/files/{file_id}", Access.READ, this::head);
        routes.cas(Method.GET, "/v2/file-chunk-hashes/{file_id}", Access.READ, this::chunkHashes);
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
        writer.write(AnswerFormat.of(version), body, plan, signer);
    }

    /** §5.6: invalid ids are dropped (400 if none is valid), unknown or invisible files are left out, no Range. */
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
        BatchPlan batch;
        try {
            batch = BatchPlan.of(planner, valid, grant.scope());
        } catch (BatchPlan.TooLarge e) {
            throw HttpError.badRequest(e.getMessage());
        }
        UrlSigner signer = new UrlSigner(urls, base(req), grant.scope(), urls.expiry());
        res.status(200);
        res.header(HeaderNames.CONTENT_TYPE, "application/json");
        try (OutputStream out = res.outputStream()) {
            JsonBytes json = new JsonBytes(out, JsonBytes.FLUSH_AT + 16 * 1024);
            ReconstructionJson.writeBatch(json, batch, signer);
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
        ChunkHashesJson.write(json, answer);
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
