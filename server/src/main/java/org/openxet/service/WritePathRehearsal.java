package org.openxet.service;

import org.openxet.protocol.ClientUploads;
import org.openxet.protocol.FormatException;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.XetHashes;
import org.openxet.protocol.shard.Shard;
import org.openxet.protocol.shard.ShardParser;
import org.openxet.protocol.shard.ShardWriter;
import org.openxet.protocol.xorb.ValidatedXorb;
import org.openxet.protocol.xorb.XorbValidator;
import org.openxet.storage.Index;
import org.openxet.storage.IndexException;
import org.openxet.storage.ShardCommit;
import org.openxet.storage.XorbLayout;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * An upload's one-time costs, paid before a node says it is ready, with nothing stored. In memory: a small xorb and a
 * shard over it, built as a client builds them, go through the checks an upload goes through (the xorb validated chunk
 * by chunk, its LZ4 chunks decoded by liblz4; the shard parsed, hashed, written in its stored form and checked against
 * the xorb), and a registration record is serialized. In the index: the rows their registration would write, in a
 * transaction that is rolled back ({@link Index#rehearseRegistration}; PostgreSQL only).
 *
 * <p>Why: the first xorb upload after a start linked liblz4's six downcall handles (FFM spins a stub class and its
 * method handles for each, which no AOT cache holds) and the first shard built the registration record's JSON
 * serializer: 45–60 ms and 12–17 ms of server time (access log) at 200 req/s, the first second's reads behind them
 * with a p99 of 39–56 ms. On PostgreSQL a fresh node's first registrations are slower still: the AOT cache is trained
 * on SQLite, and each pooled connection's server process parses, plans and loads catalogs at its first write
 * (docs/BENCHMARKS.md, "Restart").
 */
public final class WritePathRehearsal {
    /** The scope the rehearsed shard names: it is never registered, so no scope sees it. */
    private static final String SCOPE = "warmup/write-path";

    private WritePathRehearsal() {
    }

    /** What one rehearsed upload registers: its xorbs' layouts and its shard's commit. */
    public record Upload(List<XorbLayout> xorbs, ShardCommit commit) {
    }

    /** The in-memory part; returns what the upload's registration would write (nothing writes it). */
    public static Upload inMemory() throws FormatException, IOException {
        SplittableRandom r = new SplittableRandom(0x5EED);
        // Text chunks are stored LZ4-compressed, random ones as they are: the validator decodes both schemes.
        ClientUploads.Xorb lz4 = ClientUploads.xorb(r, 8, 1024, 8 * 1024, true);
        ClientUploads.Xorb raw = ClientUploads.xorb(r, 8, 1024, 8 * 1024, false);
        List<XorbLayout> layouts = List.of(validated(lz4), validated(raw));

        byte[] body = ClientUploads.shard(List.of(ClientUploads.file(List.of(new ClientUploads.Term(lz4, 0, 8),
                new ClientUploads.Term(raw, 0, 8)))), List.of(lz4, raw));
        Shard shard = ShardParser.parse(body, 0, body.length);
        MerkleHash shardHash = XetHashes.chunkHash(body, 0, body.length);
        byte[] stored = ShardWriter.writeStored(shard, 0, -1L);
        Map<MerkleHash, XorbLayout> byHash = Map.of(lz4.hash(), layouts.get(0), raw.hash(), layouts.get(1));
        ShardCommit commit = ShardValidation.validate(shard, byHash, shardHash, SCOPE, stored.length,
                ShardRegistration.SILENT);
        RecordLog.JSON.writeValueAsBytes(new Registrations.Record(shardHash.hex(), SCOPE, 0));
        return new Upload(layouts, commit);
    }

    /** The index part: {@code upload}'s registration, rolled back; false when the index has nothing to rehearse. */
    public static boolean inIndex(Index index, Upload upload) throws IndexException {
        return index.rehearseRegistration(upload.xorbs(), upload.commit());
    }

    /**
     * On a shared index, the connections that uploads hold their xorb's lock on (OnlineCollection), opened now rather
     * than by the first uploads under full traffic; nothing stays locked.
     */
    public static void openUploadConnections(Index index) throws IndexException {
        if (index.shared().isPresent()) index.shared().get().onlineCollection().openUploadConnections();
    }

    private static XorbLayout validated(ClientUploads.Xorb x) throws FormatException {
        try (XorbValidator validator = new XorbValidator()) {
            ValidatedXorb v = validator.validateUpload(x.body(), x.body().length, x.hash());
            v.footer();
            return new XorbLayout(v.hash(), v.chunks(), v.storedSize());
        }
    }
}
