package org.openxet.storage;

import io.helidon.dbclient.DbClient;
import io.helidon.dbclient.DbRow;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.xorb.ChunkTable;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

import static org.openxet.storage.PostgresRows.bytes;
import static org.openxet.storage.PostgresRows.number;
import static org.openxet.storage.PostgresRows.raw;
import static org.openxet.storage.Statements.dml;
import static org.openxet.storage.Statements.get;
import static org.openxet.storage.Statements.query;

/**
 * The index in PostgreSQL, for several nodes sharing one database: the logical schema and the semantics of
 * {@link SqliteIndex}, through Helidon DB Client over a HikariCP pool. Any number of nodes may read and write at once:
 * every write is one statement or one transaction whose conflicts PostgreSQL resolves with unique keys
 * ({@code ON CONFLICT}), so two nodes registering the same xorb or shard get exactly one {@code true}. A database
 * that cannot be reached is an {@link IndexException} (a 5xx the client retries); the pool replaces broken
 * connections by itself once the server is back. The pool and how work runs on it are {@link PostgresConnections}';
 * a registration's statements are {@link PostgresRegistration}'s.
 */
public final class PostgresIndex implements Index, SharedIndex {
    /** How long a call waits for a connection before it fails: the whole wait of a request while the server is down. */
    public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(5);

    private static final String XORB_LAYOUTS = "SELECT hash, chunk_count, chunk_hashes, layout, stored_bytes FROM xorbs "
            + "WHERE hash = ANY(?) AND quarantined_at IS NULL";
    private static final String XORB_LISTED_IN = "SELECT 1 FROM xorbs x JOIN shard_xorbs sx ON sx.xorb_id = x.id "
            + "JOIN shard_scopes s ON s.shard_id = sx.shard_id AND s.scope = ? WHERE x.hash = ? AND x.quarantined_at IS NULL"
            + " LIMIT 1";
    /*
     * One round trip: the xorb holding the chunk in the newest shard that registered it (visible to the scope), then
     * the other xorbs of that shard in registration order, as SQLite's two statements answer.
     */
    private static final String DEDUP = """
            WITH hit AS (SELECT d.shard_id, d.xorb_id FROM dedup_chunks d %s
                         WHERE d.chunk_hash = ? ORDER BY d.shard_id DESC LIMIT 1)
            SELECT 0 AS rank, x.id, x.hash, x.chunk_count, x.chunk_hashes, x.layout, x.stored_bytes
            FROM hit JOIN xorbs x ON x.id = hit.xorb_id WHERE x.quarantined_at IS NULL
            UNION ALL
            (SELECT 1, x.id, x.hash, x.chunk_count, x.chunk_hashes, x.layout, x.stored_bytes
             FROM hit JOIN shard_xorbs sx ON sx.shard_id = hit.shard_id JOIN xorbs x ON x.id = sx.xorb_id
             WHERE x.id <> hit.xorb_id AND x.quarantined_at IS NULL ORDER BY x.id LIMIT ?)
            ORDER BY rank, id""";
    private static final String DEDUP_ANY_SCOPE = DEDUP.formatted("");
    private static final String DEDUP_IN_SCOPE = DEDUP.formatted(
            "JOIN shard_scopes s ON s.shard_id = d.shard_id AND s.scope = ?");

    private final String applicationName = PostgresCollectorLock.APPLICATION_PREFIX + java.util.UUID.randomUUID();
    private final PostgresConnections connections;
    private final DbClient db;
    private final PostgresOnlineCollection online;
    private final PostgresAuthStore auth;
    private final IndexScans scans;
    private final PostgresFileLookups files;
    private final BucketRepos bucketRepos = new JdbcBucketRepos(new JdbcBucketRepos.Transactions() {
        @Override
        public <T> T read(JdbcBucketRepos.Work<T> work) throws IndexException {
            return connections.inTransaction(work::run);
        }

        /** A batch PostgreSQL aborts as a deadlock victim or a serialisation failure changed nothing: run it again. */
        @Override
        public <T> T write(JdbcBucketRepos.Work<T> work) throws IndexException {
            return connections.inRetriedTransaction(work::run);
        }
    });

    public PostgresIndex(String jdbcUrl, int poolSize) throws IndexException {
        this(jdbcUrl, poolSize, DEFAULT_CONNECTION_TIMEOUT);
    }

    /**
     * Connects (failing at once when the server cannot be reached) and brings the schema up to date.
     *
     * @param jdbcUrl           {@code jdbc:postgresql://host:port/db?user=...&password=...}
     * @param poolSize          connections this node keeps open
     * @param connectionTimeout longest wait for a connection before a call fails
     */
    public PostgresIndex(String jdbcUrl, int poolSize, Duration connectionTimeout) throws IndexException {
        connections = PostgresConnections.open(jdbcUrl, poolSize, connectionTimeout, applicationName);
        db = connections.db();
        String where = connections.where();
        auth = new PostgresAuthStore(db, where);
        scans = new PostgresScans(db, connections::read);
        // One connection is left to everything else (xorb lookups, registrations) while file lookups queue.
        files = new PostgresFileLookups(db, Math.max(1, poolSize - 1), connections::read);
        online = new PostgresOnlineCollection(jdbcUrl, applicationName, poolSize, connectionTimeout,
                connections.pool(), where);
    }

    @Override
    public Optional<SharedIndex> shared() {
        return Optional.of(this);
    }

    @Override
    public OnlineCollection onlineCollection() {
        return online;
    }

    /**
     * Offline collection's proof ({@link PostgresCollectorLock}): no other openxet process is connected and none can
     * start until the collector closes. The queries run in one transaction each, on the same JDBC as SQLite's.
     */
    @Override
    public Collector collector() throws IndexException {
        Connection held = PostgresCollectorLock.acquire(connections.pool(), applicationName, connections.where());
        return new Collector() {
            @Override
            public List<UnusedXorb> unusedXorbs(long registeredBefore) throws IndexException {
                return connections.inTransaction(c -> UnusedXorbs.find(c, registeredBefore));
            }

            @Override
            public List<UnusedXorb> forgetUnusedXorbs(long registeredBefore) throws IndexException {
                return connections.inTransaction(c -> UnusedXorbs.forget(c, registeredBefore));
            }

            @Override
            public void close() throws IndexException {
                try {
                    PostgresCollectorLock.release(held);
                } catch (SQLException e) {
                    throw new IndexException("cannot release the collector lock on " + connections.where() + ": "
                            + PostgresConnections.rootMessage(e), e);
                }
            }
        };
    }

    /**
     * Whether {@code t} (or a cause) is a pool's wait for a connection that ran out while the database answered: every
     * connection was in use by other requests, so the node is overloaded, not cut off from its index. HikariCP reports
     * both as a {@link SQLTransientConnectionException} after {@code connectionTimeout}; when it could not open a
     * connection the exception carries that failure as its cause, and when all were merely busy it carries none.
     */
    public static boolean connectionsAllInUse(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof SQLTransientConnectionException && c.getCause() == null) return true;
        }
        return false;
    }

    /** {@code jdbcUrl} as logs and messages may show it: no query (it carries the password), no user:password@. */
    public static String urlForLogs(String jdbcUrl) {
        return PostgresConnections.forLogs(jdbcUrl);
    }

    private static long now() {
        return System.currentTimeMillis() / 1000;
    }

    @Override
    public BucketRepos bucketRepos() {
        return bucketRepos;
    }

    @Override
    public IndexScans scans() {
        return scans;
    }

    @Override
    public boolean hasXorb(MerkleHash hash) throws IndexException {
        return connections.read(() -> get(db.execute(),
                "SELECT 1 FROM xorbs WHERE hash = ? AND quarantined_at IS NULL", hash.toBytes())
                .isPresent());
    }

    @Override
    public boolean xorbListedIn(MerkleHash hash, String scope) throws IndexException {
        return connections.read(() -> get(db.execute(), XORB_LISTED_IN, scope, hash.toBytes()).isPresent());
    }

    @Override
    public Optional<XorbLayout> xorb(MerkleHash hash) throws IndexException {
        return Optional.ofNullable(xorbs(List.of(hash)).get(hash));
    }

    @Override
    public Map<MerkleHash, XorbLayout> xorbs(Collection<MerkleHash> hashes) throws IndexException {
        Set<MerkleHash> wanted = new LinkedHashSet<>(hashes);
        if (wanted.isEmpty()) return new HashMap<>();
        return connections.read(() -> {
            Map<MerkleHash, XorbLayout> out = new HashMap<>();
            try (Stream<DbRow> rows = query(db.execute(), XORB_LAYOUTS, (Object) raw(wanted))) {
                rows.forEach(r -> {
                    XorbLayout l = layout(r);
                    out.put(l.hash(), l);
                });
            }
            return out;
        });
    }

    private static XorbLayout layout(DbRow r) {
        int n = (int) number(r, "chunk_count");
        byte[] layout = bytes(r, "layout");
        return new XorbLayout(MerkleHash.fromBytes(bytes(r, "hash")), new ChunkTable(n, bytes(r, "chunk_hashes"),
                Packing.ints(layout, 0, n), Packing.ints(layout, n, n)), number(r, "stored_bytes"));
    }

    @Override
    public boolean putXorb(MerkleHash hash, ChunkTable chunks, long storedBytes) throws IndexException {
        return connections.writeStatement(
                () -> PostgresRegistration.insertXorb(db.execute(), hash, chunks, storedBytes, now()) == 1);
    }

    @Override
    public void renewXorb(MerkleHash hash, long nowSeconds) throws IndexException {
        connections.writeStatement(() -> dml(db.execute(),
                "UPDATE xorbs SET created_at = ? WHERE hash = ? AND created_at < ?", nowSeconds, hash.toBytes(),
                nowSeconds - RENEW_AFTER_SECONDS));
    }

    @Override
    public boolean hasShard(MerkleHash shardHash) throws IndexException {
        return connections.read(() -> get(db.execute(), "SELECT 1 FROM shards WHERE hash = ?", shardHash.toBytes()).isPresent());
    }

    @Override
    public boolean registerShard(ShardCommit commit) throws IndexException {
        return connections.write(tx -> PostgresRegistration.register(tx, commit, now()));
    }

    @Override
    public boolean rehearseRegistration(List<XorbLayout> xorbs, ShardCommit commit) throws IndexException {
        try {
            connections.write(tx -> {
                for (XorbLayout x : xorbs) {
                    PostgresRegistration.insertXorb(tx, x.hash(), x.chunks(), x.storedBytes(), now());
                }
                PostgresRegistration.register(tx, commit, now());
                throw new RolledBack();
            });
        } catch (RolledBack expected) {
            // the transaction was rolled back, as intended
        }
        return true;
    }

    /** Ends a rehearsal's transaction: {@link PostgresConnections#write} rolls back on it and rethrows it. */
    private static final class RolledBack extends RuntimeException {
        RolledBack() {
            super(null, null, false, false);
        }
    }

    @Override
    public Optional<FileRecord> file(MerkleHash fileHash, String scope) throws IndexException {
        return files.file(fileHash, scope);
    }

    /** The file lookups themselves: tests ask them for a batch at once. */
    PostgresFileLookups fileLookups() {
        return files;
    }

    @Override
    public AuthStore authStore() {
        return auth;
    }

    @Override
    public List<XorbLayout> dedup(MerkleHash chunkHash, String scope, int maxXorbs) throws IndexException {
        return connections.read(() -> {
            List<XorbLayout> out = new ArrayList<>();
            int others = Math.max(0, maxXorbs - 1);
            try (Stream<DbRow> rows = scope == null
                    ? query(db.execute(), DEDUP_ANY_SCOPE, chunkHash.toBytes(), others)
                    : query(db.execute(), DEDUP_IN_SCOPE, scope, chunkHash.toBytes(), others)) {
                rows.forEach(r -> out.add(layout(r)));
            }
            return out;
        });
    }

    @Override
    public byte[] keyFingerprint(byte[] fingerprint) throws IndexException {
        // The first node to start records its keys; every later one (racing or not) reads the winner's.
        connections.write(tx -> dml(tx,
                "INSERT INTO node_keys (id, fingerprint, recorded_at) VALUES (1, ?, ?) ON CONFLICT (id) DO NOTHING",
                fingerprint, now()));
        return connections.read(() -> bytes(get(db.execute(),
                "SELECT fingerprint FROM node_keys WHERE id = 1").orElseThrow(), "fingerprint"));
    }

    @Override
    public boolean quarantineXorb(MerkleHash hash, long nowSeconds) throws IndexException {
        return connections.writeStatement(() -> dml(db.execute(),
                "UPDATE xorbs SET quarantined_at = ? WHERE hash = ? AND quarantined_at IS NULL", nowSeconds,
                hash.toBytes()) == 1);
    }

    @Override
    public void close() {
        online.close();
        connections.close();
    }
}
