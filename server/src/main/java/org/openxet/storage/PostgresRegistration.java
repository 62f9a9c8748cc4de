package org.openxet.storage;

import io.helidon.dbclient.DbClientException;
import io.helidon.dbclient.DbExecute;
import io.helidon.dbclient.DbRow;
import io.helidon.dbclient.DbTransaction;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.xorb.ChunkTable;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

import static org.openxet.storage.PostgresRows.raw;
import static org.openxet.storage.Statements.dml;
import static org.openxet.storage.Statements.get;
import static org.openxet.storage.Statements.query;

/**
 * The write side of {@link PostgresIndex}: a xorb's row, and a shard's registration as the statements of one
 * transaction, each taking its rows in one order (hash or id) so that concurrent registrations wait for each other
 * instead of deadlocking.
 */
final class PostgresRegistration {
    /* A quarantined xorb comes back only in the layout its files' byte ranges were resolved against. */
    private static final String INSERT_XORB = "INSERT INTO xorbs (hash, chunk_count, unpacked_bytes, stored_bytes, "
            + "chunk_hashes, layout, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (hash) DO UPDATE SET "
            + "quarantined_at = NULL, created_at = excluded.created_at WHERE xorbs.quarantined_at IS NOT NULL "
            + "AND xorbs.layout = excluded.layout AND xorbs.chunk_hashes = excluded.chunk_hashes";
    private static final String INSERT_SHARD = "INSERT INTO shards (hash, stored_bytes, created_at) VALUES (?, ?, ?) "
            + "ON CONFLICT (hash) DO NOTHING RETURNING id";
    private static final String INSERT_SHARD_SCOPE = "INSERT INTO shard_scopes (shard_id, scope) VALUES (?, ?) "
            + "ON CONFLICT DO NOTHING";
    /*
     * All files of a shard in one statement. As SQLite applies them one by one, the last entry of a file listed twice
     * wins. Rows are written in hash order and scopes in id order, the same order in every transaction, so two
     * registrations sharing files wait for each other instead of deadlocking.
     */
    private static final String UPSERT_FILES = """
            WITH given AS (
                SELECT DISTINCT ON (hash) hash, size, term_count, xorb_refs, terms, sha256
                FROM unnest(?::bytea[], ?::bigint[], ?::int[], ?::bytea[], ?::bytea[], ?::bytea[]) WITH ORDINALITY
                    AS g (hash, size, term_count, xorb_refs, terms, sha256, n)
                ORDER BY hash, n DESC),
            upserted AS (
                INSERT INTO files (hash, size, term_count, xorb_refs, terms, sha256, shard_id, updated_at)
                SELECT hash, size, term_count, xorb_refs, terms, sha256, ?, ? FROM given ORDER BY hash
                ON CONFLICT (hash) DO UPDATE SET size = excluded.size, term_count = excluded.term_count,
                    xorb_refs = excluded.xorb_refs, terms = excluded.terms,
                    sha256 = coalesce(excluded.sha256, files.sha256), shard_id = excluded.shard_id,
                    updated_at = excluded.updated_at
                RETURNING id)
            INSERT INTO file_scopes (scope, file_id) SELECT ?, id FROM upserted ORDER BY id ON CONFLICT DO NOTHING""";
    private static final String INSERT_FILE_SCOPES = "INSERT INTO file_scopes (scope, file_id) "
            + "SELECT ?, id FROM files WHERE hash = ANY(?) ORDER BY id ON CONFLICT DO NOTHING";
    private static final String INSERT_SHARD_XORBS = "INSERT INTO shard_xorbs (shard_id, xorb_id) "
            + "SELECT ?, id FROM xorbs WHERE hash = ANY(?) ORDER BY id ON CONFLICT DO NOTHING";
    /* As SQLite inserts them one by one: of a chunk listed twice, the first entry whose xorb is registered wins. */
    private static final String INSERT_DEDUP_CHUNKS = """
            INSERT INTO dedup_chunks (chunk_hash, shard_id, xorb_id)
            SELECT DISTINCT ON (d.chunk) d.chunk, ?, x.id
            FROM unnest(?::bytea[], ?::bytea[]) WITH ORDINALITY AS d (chunk, xorb, n) JOIN xorbs x ON x.hash = d.xorb
            ORDER BY d.chunk, d.n ON CONFLICT DO NOTHING""";

    private PostgresRegistration() {
    }

    /**
     * A xorb's row: 1 when inserted (or a quarantined row of the same layout revived), 0 when it was there. In
     * autocommit, of two nodes inserting the same hash the second waits for the first to commit and then inserts
     * nothing (READ COMMITTED re-checks the unique key).
     */
    static long insertXorb(DbExecute ex, MerkleHash hash, ChunkTable chunks, long storedBytes, long now) {
        return dml(ex, INSERT_XORB, hash.toBytes(), chunks.count(), chunks.unpackedBytes(), storedBytes,
                chunks.hashes(), Packing.ints(chunks.byteEnds(), chunks.unpackedEnds()), now);
    }

    /**
     * A shard's rows, inside {@code tx} ({@link PostgresIndex#registerShard}): false when the shard was registered
     * before (its scope and its files' scopes are still added for {@code commit}'s scope).
     */
    static boolean register(DbTransaction tx, ShardCommit commit, long t) {
        byte[] shardHash = commit.shardHash().toBytes();
        // A concurrent registration of the same shard makes this insert wait for its outcome: committed, the
        // insert does nothing and the next statement (a new snapshot) sees the winner's row.
        Optional<DbRow> created = get(tx, INSERT_SHARD, shardHash, commit.storedBytes(), t);
        long shardId = created.isPresent()
                ? PostgresRows.number(created.get(), "id")
                : PostgresRows.number(get(tx, "SELECT id FROM shards WHERE hash = ?", shardHash).orElseThrow(
                        () -> new DbClientException("shard " + commit.shardHash() + " vanished inside its transaction")), "id");
        dml(tx, INSERT_SHARD_SCOPE, shardId, commit.scope());
        List<FileRecord> files = commit.files();
        if (created.isPresent()) {
            requireXorbs(tx, commit.namedXorbs(), t);
        }
        if (created.isEmpty()) {
            if (!files.isEmpty()) {
                dml(tx, INSERT_FILE_SCOPES, commit.scope(), raw(files.stream().map(FileRecord::fileHash).toList()));
            }
            return false;
        }
        if (!files.isEmpty()) {
            int n = files.size();
            byte[][] hashes = new byte[n][];
            long[] sizes = new long[n];
            int[] termCounts = new int[n];
            byte[][] xorbRefs = new byte[n][];
            byte[][] terms = new byte[n][];
            byte[][] sha256 = new byte[n][];
            for (int i = 0; i < n; i++) {
                FileRecord f = files.get(i);
                hashes[i] = f.fileHash().toBytes();
                sizes[i] = f.size();
                termCounts[i] = f.termCount();
                xorbRefs[i] = Packing.hashes(f.xorbs());
                terms[i] = f.packedTerms();
                sha256[i] = f.sha256() == null ? null : f.sha256().toBytes();
            }
            dml(tx, UPSERT_FILES, hashes, sizes, termCounts, xorbRefs, terms, sha256, shardId, t, commit.scope());
        }
        if (!commit.listedXorbs().isEmpty()) {
            dml(tx, INSERT_SHARD_XORBS, shardId, raw(commit.listedXorbs()));
        }
        List<ShardCommit.DedupChunk> dedup = commit.dedupChunks();
        if (!dedup.isEmpty()) {
            byte[][] chunks = new byte[dedup.size()][];
            byte[][] xorbs = new byte[dedup.size()][];
            for (int i = 0; i < dedup.size(); i++) {
                chunks[i] = dedup.get(i).chunkHash().toBytes();
                xorbs[i] = dedup.get(i).xorbHash().toBytes();
            }
            dml(tx, INSERT_DEDUP_CHUNKS, shardId, chunks, xorbs);
        }
        return true;
    }

    /**
     * Inside a registration's transaction: every named xorb has its row. Row locks (FOR SHARE) hold them until the
     * commit, so no collector deletes one in between.
     */
    private static void requireXorbs(DbTransaction tx, Set<MerkleHash> named, long now) {
        if (named.isEmpty()) return;
        // The online collector's fence (OnlineCollection): an old xorb this registration makes used gets a new time,
        // so a collector that scanned before this commit finds it young once it holds the row. Rows in id order, as
        // the collector takes them.
        dml(tx, "UPDATE xorbs SET created_at = ? WHERE id IN (SELECT id FROM xorbs WHERE hash = ANY(?)"
                + " AND created_at < ? ORDER BY id FOR UPDATE)", now, (Object) raw(named), now - Index.RENEW_AFTER_SECONDS);
        long present;
        try (Stream<DbRow> rows = query(tx, "SELECT id FROM xorbs WHERE hash = ANY(?) AND quarantined_at IS NULL"
                + " ORDER BY id FOR SHARE", (Object) raw(named))) {
            present = rows.count();
        }
        if (present != named.size()) {
            throw new MissingXorbsException((int) (named.size() - present), named);
        }
    }
}
