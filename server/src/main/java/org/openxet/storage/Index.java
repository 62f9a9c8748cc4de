package org.openxet.storage;

import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.xorb.ChunkTable;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The metadata index: which xorbs exist and their chunk layout, which files exist and their terms, who may see them,
 * and the global-dedup entries. Implementations: SQLite (embedded default) and PostgreSQL (several nodes). All reads
 * of the download path are answered from here; blobs are never read to plan a reconstruction.
 */
public interface Index extends AutoCloseable {
    boolean hasXorb(MerkleHash hash) throws IndexException;

    Optional<XorbLayout> xorb(MerkleHash hash) throws IndexException;

    /** Whether a shard registered under {@code scope} lists the xorb (what the isolation switch lets a scope see). */
    boolean xorbListedIn(MerkleHash hash, String scope) throws IndexException;

    /** Layouts of the given xorbs that exist (absent ones are missing from the map). */
    Map<MerkleHash, XorbLayout> xorbs(Collection<MerkleHash> hashes) throws IndexException;

    /** Registers a stored xorb; false when it was already registered (nothing changes then). */
    boolean putXorb(MerkleHash hash, ChunkTable chunks, long storedBytes) throws IndexException;

    /** How old a registration must be before a re-upload renews it: one index write per xorb an hour, at most. */
    long RENEW_AFTER_SECONDS = 3600;

    /**
     * A stored xorb was uploaded again (answered {@code was_inserted: false}): its registration time becomes
     * {@code nowSeconds} if it is older than {@link #RENEW_AFTER_SECONDS}. gc's grace runs from that time, so a client
     * whose shard refers to a xorb it has just re-sent never finds the xorb collected under it, however old the first
     * upload was.
     */
    void renewXorb(MerkleHash hash, long nowSeconds) throws IndexException;

    boolean hasShard(MerkleHash shardHash) throws IndexException;

    /**
     * Registers a shard in one transaction: files (a file already known points at the newest terms), the scope's
     * visibility of each file, the xorbs it lists, and dedup entries. False when the shard was registered before —
     * then only the scope is added.
     */
    boolean registerShard(ShardCommit commit) throws IndexException;

    /**
     * What {@link #putXorb} of {@code xorbs} and then {@link #registerShard} of {@code commit} would write, in one
     * transaction that is always rolled back: nothing stored changes. The warm-up's rehearsal of an upload, for an index
     * whose connections keep state a first write builds (PostgreSQL's server processes parse, plan and load catalogs
     * per connection). False when the index has nothing to rehearse, as by default.
     */
    default boolean rehearseRegistration(List<XorbLayout> xorbs, ShardCommit commit) throws IndexException {
        return false;
    }

    /** The file, if a shard registered it under {@code scope}. */
    Optional<FileRecord> file(MerkleHash fileHash, String scope) throws IndexException;

    /**
     * The xorb blocks to disclose for a global-dedup query of {@code chunkHash}: the xorb holding it first, then the
     * other xorbs of the shard that registered it, at most {@code maxXorbs}. With {@code scope} non-null, only
     * entries registered under that scope count (the multi-tenant isolation switch). Empty when not indexed.
     */
    List<XorbLayout> dedup(MerkleHash chunkHash, String scope, int maxXorbs) throws IndexException;

    /** The Hub's bucket repositories kept in this index (path → Xet file hash per bucket). */
    BucketRepos bucketRepos();

    /** The features only an index several nodes share has; empty for an index private to one data dir. */
    default Optional<SharedIndex> shared() {
        return Optional.empty();
    }

    /**
     * Marks a xorb whose object is damaged or gone ({@code openxet repair}): from now on every read treats it as absent
     * ({@link #hasXorb} false, no layout, no dedup answer, no scan) while its row stays for the files that use it, and
     * {@link #putXorb} of the same chunk table brings it back (true). False when it was not registered or already so.
     */
    boolean quarantineXorb(MerkleHash hash, long nowSeconds) throws IndexException;

    /** The whole-index walks of operators' tools and the warm-up: fsck, backup, repair, recovery. */
    IndexScans scans();

    /**
     * The hold an offline {@code openxet gc} collects under: at once for an index private to one data dir (whose lock
     * the caller holds), and for a shared one only while no node runs (refused otherwise).
     */
    Collector collector() throws IndexException;

    /** A registered xorb that nothing uses; {@code registeredAt} in epoch seconds. */
    record UnusedXorb(MerkleHash hash, long storedBytes, long registeredAt) {
    }

    @Override
    void close();
}
