package org.openxet.http;

import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.XetHashes;
import org.openxet.protocol.shard.DedupShardBuilder;
import org.openxet.protocol.shard.XorbBlock;
import org.openxet.protocol.shard.XorbChunkEntry;
import org.openxet.protocol.xorb.ChunkTable;
import org.openxet.service.Access;
import org.openxet.service.Grant;
import org.openxet.service.Services;
import org.openxet.service.Slots;
import org.openxet.storage.XorbLayout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code GET /v1/chunks/{prefix}/{hash}} (older clients' paths in {@link ClientPaths}): the global-dedup query
 * (§5.7). A hit answers a shard (§4.8) with the xorb holding the chunk and the other xorbs of the shard that
 * registered it, chunk hashes keyed with the server's dedup key; a miss is a 404. Global across scopes by default, as
 * on the Hub — the answer carries only keyed hashes, and a shard can only reference ranges whose real chunk hashes its
 * uploader proves (verification hashes, §6). With {@code dedup.isolate} only chunks registered under the asking
 * token's scope count.
 */
final class DedupRoutes {
    /** Xorb blocks per answer: enough for a multi-xorb file, bounded for the answer size. */
    static final int MAX_XORBS = 32;
    /** How long the client may rely on an answer (§4.8: days to weeks). */
    static final Duration VALIDITY = Duration.ofDays(7);

    /**
     * Answers built at once: each reads up to 32 xorbs' chunk tables and writes up to ~12 MB. The clients ask once per
     * chunk eligible for dedup and treat any error as "no match" (§5.7), so a short wait and then a 503 costs an upload
     * nothing but a missed dedup.
     */
    private final Slots answers = new Slots(2 * Runtime.getRuntime().availableProcessors(), "dedup answer", false);
    static final Duration ANSWER_WAIT = Duration.ofSeconds(2);
    private final Services services;

    DedupRoutes(Services services) {
        this.services = services;
    }

    void register(RouteTable routes) {
        for (String path : ClientPaths.DEDUP) routes.cas(Method.GET, path, Access.READ, this::query);
    }

    private void query(ServerRequest req, ServerResponse res, Grant grant) throws Exception {
        String prefix = req.path().pathParameters().get("prefix");
        if (!prefix.equals("default") && !prefix.equals("default-merkledb")) {
            throw HttpError.badRequest("unknown dedup prefix '" + prefix + "'");
        }
        MerkleHash chunk = XorbRoutes.hashParam(req, "hash");
        try (Slots.Held ignored = answers.acquire(ANSWER_WAIT)) {
            answer(req, res, grant, chunk);
        }
    }

    private void answer(ServerRequest req, ServerResponse res, Grant grant, MerkleHash chunk) throws Exception {
        List<XorbLayout> layouts = services.index().dedup(chunk,
                services.config().dedupIsolate() ? grant.scope() : null, MAX_XORBS);
        if (layouts.isEmpty()) {
            throw HttpError.notFound("chunk " + chunk + " is not in the global dedup index");
        }
        List<XorbBlock> blocks = new ArrayList<>(layouts.size());
        for (XorbLayout l : layouts) {
            blocks.add(block(l));
        }
        long now = services.clock().millis() / 1000;
        byte[] body = DedupShardBuilder.build(blocks, services.secrets().dedupKey(), now, now + VALIDITY.toSeconds());
        res.status(200);
        res.header(HeaderNames.CONTENT_TYPE, "application/octet-stream");
        res.send(body);
    }

    static XorbBlock block(XorbLayout l) {
        ChunkTable t = l.chunks();
        List<XorbChunkEntry> chunks = new ArrayList<>(t.count());
        for (int k = 0; k < t.count(); k++) {
            MerkleHash h = t.hash(k);
            int flags = XetHashes.isGlobalDedupEligible(h) ? XorbChunkEntry.FLAG_GLOBAL_DEDUP : 0;
            chunks.add(new XorbChunkEntry(h, t.unpackedStart(k), t.unpackedLength(k), flags));
        }
        return new XorbBlock(l.hash(), 0, (int) t.unpackedBytes(), t.recordBytes(), chunks);
    }
}
