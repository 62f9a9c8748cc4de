package org.openxet.storage;

import org.openxet.protocol.MerkleHash;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The whole-index walks operators' tools make (fsck, backup, repair, the recovery after an unclean stop) and the
 * server's warm-up, apart from the reads and writes that serve requests ({@link Index#scans}). They run beside a
 * serving index, so they page: the {@code each*} walks and {@link #scopesOf} read {@link #SCAN_PAGE} rows a query and
 * {@link #sampleFiles} one indexed row an id (on PostgreSQL in one statement), each a short read that holds no long
 * transaction on the serving index, and the caller's work on a page runs with no connection held.
 */
public interface IndexScans {
    /** Row counts per table, for tests and operators. */
    Map<String, Long> rowCounts() throws IndexException;

    /** A registered object and the stored size the index expects of it (fsck). */
    record Stored(MerkleHash hash, long storedBytes) {
    }

    /** Rows a scan reads per query: a short read each, so a scan holds no long transaction on a serving index. */
    int SCAN_PAGE = 1_000;

    /** Every registered xorb in registration order, {@link #SCAN_PAGE} rows a query (fsck: nothing held in memory). */
    void eachXorb(Consumer<Stored> each) throws IndexException;

    /** Every registered shard in registration order, as {@link #eachXorb}. */
    void eachShard(Consumer<Stored> each) throws IndexException;

    /** A shard's registration under one scope, and when the shard was first registered (epoch seconds). */
    record ShardScope(MerkleHash shard, String scope, long registeredAt) {
    }

    /** Every (shard, scope) registration, a page at a time (the bucket's registration records are written from it). */
    void eachShardScope(Consumer<ShardScope> each) throws IndexException;

    /** Every registered file's record in registration order, as {@link #eachXorb}. */
    void eachFile(Consumer<FileRecord> each) throws IndexException;

    /**
     * The scopes each of {@code files} is registered under, sorted (fsck names them for each file it cannot
     * reconstruct). Reads every visibility row once, a page at a time: the table is keyed by scope first, so a
     * lookup by file would scan it per file.
     */
    Map<MerkleHash, List<String>> scopesOf(Set<MerkleHash> files) throws IndexException;

    /** A registered file and a scope whose tokens can read it. */
    record FileInScope(MerkleHash file, String scope) {
    }

    /**
     * Up to {@code n} registered files spread over the whole index, each with a scope of the shard that registered it:
     * for each of {@code n} random ids (from {@code seed}), the first file at or after it, a short indexed read each.
     * Read only: the server's warm-up asks for these before it reports ready.
     */
    List<FileInScope> sampleFiles(int n, long seed) throws IndexException;

    /** Keys of every registered xorb (reconciliation after an unclean stop). */
    List<MerkleHash> xorbHashes() throws IndexException;
}
