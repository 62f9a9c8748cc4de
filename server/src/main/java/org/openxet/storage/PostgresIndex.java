package org.openxet.storage;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.helidon.dbclient.DbClient;
import io.helidon.dbclient.DbClientException;
import io.helidon.dbclient.DbRow;
import io.helidon.dbclient.DbTransaction;
import io.helidon.dbclient.jdbc.JdbcClientBuilder;
import io.helidon.dbclient.jdbc.JdbcConnectionPool;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.xorb.ChunkTable;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
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

import static org.openxet.storage.Statements.dml;
import static org.openxet.storage.Statements.get;
import static org.openxet.storage.Statements.query;

/**
 * The index in PostgreSQL, for several nodes sharing one database: the logical schema and the semantics of
 * {@link SqliteIndex}, through Helidon DB Client over a HikariCP pool. Any number of nodes may read and write at once:
 * every write is one statement or one transaction whose conflicts PostgreSQL resolves with unique keys
 * ({@code ON CONFLICT}), so two nodes registering the same xorb or shard get exactly one {@code true}. A database
 * that cannot be reached is an {@link IndexException} (a 5xx the client retries); the pool replaces broken
 * connections by itself once the server is back. A registration's statements are {@link PostgresRegistration}'s.
 */
public final class PostgresIndex implements Index, SharedIndex {
    /** How long a call waits for a connection before it fails: the whole wait of a request while the server is down. */
    public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(5);
    /** {@code pg_advisory_lock} key that serialises schema migrations across nodes (ASCII "openxet"). */
    private static final long MIGRATION_LOCK = 0x6f70656e786574L;
    private static final System.Logger LOG = System.getLogger(PostgresIndex.class.getName());
    /** Tries of a registration that PostgreSQL aborted as a deadlock victim or a serialisation failure. */
    private static final int ATTEMPTS = 3;

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

    private final String where;
    private final String applicationName = PostgresCollectorLock.APPLICATION_PREFIX + java.util.UUID.randomUUID();
    private final HikariDataSource pool;
    private final DbClient db;
    private final PostgresOnlineCollection online;
    private final PostgresAuthStore auth;
    private final IndexScans scans;
    private final PostgresFileLookups files;
    private final BucketRepos bucketRepos = new JdbcBucketRepos(new JdbcBucketRepos.Transactions() {
        @Override
        public <T> T read(JdbcBucketRepos.Work<T> work) throws IndexException {
            return inTransaction(work::run);
        }

        /** A batch PostgreSQL aborts as a deadlock victim or a serialisation failure changed nothing: run it again. */
        @Override
        public <T> T write(JdbcBucketRepos.Work<T> work) throws IndexException {
            for (int attempt = 1; ; attempt++) {
                try {
                    return inTransaction(work::run);
                } catch (IndexException e) {
                    if (attempt >= ATTEMPTS || !retryable(e)) throw e;
                }
            }
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
        int q = jdbcUrl.indexOf('?');
        where = q < 0 ? jdbcUrl : jdbcUrl.substring(0, q); // the query may hold a password
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(jdbcUrl);
        cfg.setMaximumPoolSize(poolSize);
        cfg.setConnectionTimeout(connectionTimeout.toMillis());
        cfg.setPoolName("openxet-index");
        // A default the URL can override: a server that vanishes without closing its connections (host down, network
        // cut) fails a call after a minute instead of the kernel's ~15 minutes of retransmissions.
        cfg.addDataSourceProperty("socketTimeout", "60");
        cfg.addDataSourceProperty("ApplicationName", applicationName);
        try {
            pool = new HikariDataSource(cfg);
        } catch (RuntimeException e) {
            throw new IndexException("cannot open PostgreSQL index at " + where + ": " + rootMessage(e), e);
        }
        try {
            migrate();
            PostgresCollectorLock.awaitNone(pool, where);
        } catch (SQLException | IOException | RuntimeException e) {
            pool.close();
            throw new IndexException("cannot open PostgreSQL index at " + where + ": " + rootMessage(e), e);
        } catch (InterruptedException e) {
            pool.close();
            Thread.currentThread().interrupt();
            throw new IndexException("interrupted while waiting for openxet gc to finish on " + where, e);
        }
        db = JdbcClientBuilder.create().connectionPool(new Pool(pool)).build();
        auth = new PostgresAuthStore(db, where);
        scans = new PostgresScans(db, this::read);
        // One connection is left to everything else (xorb lookups, registrations) while file lookups queue.
        files = new PostgresFileLookups(db, Math.max(1, poolSize - 1), this::read);
        online = new PostgresOnlineCollection(jdbcUrl, applicationName, poolSize, connectionTimeout, pool, where);
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
     * Brings the schema up to date. {@link Migrations} is plain JDBC, shared with SQLite, so this is the one place that
     * takes a connection past DB Client. Nodes starting at once on an empty database would all create the tables: a
     * session-level advisory lock (Migrations commits each migration on its own) lets one migrate while the others
     * wait and then find the schema current.
     */
    private void migrate() throws SQLException, IOException {
        try (Connection c = pool.getConnection(); Statement lock = c.createStatement()) {
            lock.execute("SELECT pg_advisory_lock(" + MIGRATION_LOCK + ")");
            Exception failure = null;
            try {
                Migrations.apply(c, "postgres", Migrations.POSTGRES);
            } catch (SQLException | IOException | RuntimeException e) {
                failure = e;
                throw e;
            } finally {
                try {
                    lock.execute("SELECT pg_advisory_unlock(" + MIGRATION_LOCK + ")");
                } catch (SQLException e) {
                    // The migration's own failure says more; a broken connection takes its lock with it anyway.
                    if (failure == null) throw e;
                    failure.addSuppressed(e);
                }
            }
        }
    }

    /**
     * Offline collection's proof ({@link PostgresCollectorLock}): no other openxet process is connected and none can
     * start until the collector closes. The queries run in one transaction each, on the same JDBC as SQLite's.
     */
    @Override
    public Collector collector() throws IndexException {
        Connection held = PostgresCollectorLock.acquire(pool, applicationName, where);
        return new Collector() {
            @Override
            public List<UnusedXorb> unusedXorbs(long registeredBefore) throws IndexException {
                return inTransaction(c -> UnusedXorbs.find(c, registeredBefore));
            }

            @Override
            public List<UnusedXorb> forgetUnusedXorbs(long registeredBefore) throws IndexException {
                return inTransaction(c -> UnusedXorbs.forget(c, registeredBefore));
            }

            @Override
            public void close() throws IndexException {
                try {
                    PostgresCollectorLock.release(held);
                } catch (SQLException e) {
                    throw new IndexException("cannot release the collector lock on " + where + ": " + rootMessage(e), e);
                }
            }
        };
    }

    private interface JdbcWork<T> {
        T run(Connection c) throws SQLException;
    }

    /** Plain JDBC in one transaction on a pooled connection, as {@link #migrate} is: the gc's queries are shared with SQLite. */
    private <T> T inTransaction(JdbcWork<T> work) throws IndexException {
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            try {
                T out = work.run(c);
                c.commit();
                return out;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw new IndexException("PostgreSQL index at " + where + ": " + rootMessage(e), e);
        }
    }

    /**
     * Helidon DB Client's view of the HikariCP pool: {@code helidon-dbclient-hikari} is not published for Helidon
     * 4.5.0, and a JDBC client needs some pool.
     */
    private record Pool(HikariDataSource source) implements JdbcConnectionPool {
        @Override
        public Connection connection() {
            try {
                return source.getConnection();
            } catch (SQLException e) {
                throw new NoConnection(e);
            }
        }

        @Override
        public String dbType() {
            return "postgresql";
        }
    }

    /** No connection within the timeout: nothing ran, so there is no transaction to roll back. */
    private static final class NoConnection extends DbClientException {
        NoConnection(SQLException cause) {
            super("no connection to PostgreSQL: " + cause.getMessage(), cause);
        }
    }

    interface Read<T> {
        T run();
    }

    private <T> T read(Read<T> work) throws IndexException {
        try {
            return work.run();
        } catch (DbClientException e) {
            throw new IndexException("index read failed (" + where + "): " + rootMessage(e), e);
        }
    }

    private interface Work<T> {
        T run(DbTransaction tx);
    }

    /**
     * One write transaction (READ COMMITTED). A registration PostgreSQL aborts as a deadlock victim or a serialisation
     * failure changed nothing and is tried again; any other failure is an {@link IndexException}. A failed commit is
     * not rolled back (DB Client has closed the connection, and whether it committed is unknown: callers check).
     */
    private <T> T write(Work<T> work) throws IndexException {
        for (int attempt = 1; ; attempt++) {
            DbTransaction tx = db.transaction();
            boolean committing = false;
            try {
                T result = work.run(tx);
                committing = true;
                tx.commit();
                return result;
            } catch (RuntimeException | Error e) {
                if (!committing && !causedBy(e, NoConnection.class)) {
                    try {
                        tx.rollback();
                    } catch (RuntimeException suppressed) {
                        e.addSuppressed(suppressed);
                    }
                }
                if (!(e instanceof DbClientException)) throw e;
                if (!committing && attempt < ATTEMPTS && retryable(e)) continue;
                throw new IndexException("index write failed (" + where + "): " + rootMessage(e), e);
            }
        }
    }

    /** 40P01 deadlock_detected, 40001 serialization_failure: the transaction was aborted and can simply run again. */
    private static boolean retryable(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof SQLException s && ("40P01".equals(s.getSQLState()) || "40001".equals(s.getSQLState()))) {
                return true;
            }
        }
        return false;
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (type.isInstance(c)) return true;
        }
        return false;
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

    static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        return root == e ? String.valueOf(e.getMessage()) : e.getMessage() + ": " + root.getMessage();
    }

    private static long now() {
        return System.currentTimeMillis() / 1000;
    }

    static long number(DbRow row, String column) {
        return row.column(column).get(Number.class).longValue();
    }

    static byte[] bytes(DbRow row, String column) {
        return (byte[]) row.column(column).get();
    }

    static byte[] bytesOrNull(DbRow row, String column) {
        return (byte[]) row.column(column).asOptional().orElse(null);
    }

    /** Hashes as a {@code bytea[]} parameter. */
    static byte[][] raw(Collection<MerkleHash> hashes) {
        byte[][] out = new byte[hashes.size()][];
        int i = 0;
        for (MerkleHash h : hashes) out[i++] = h.toBytes();
        return out;
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
        return read(() -> get(db.execute(),
                "SELECT 1 FROM xorbs WHERE hash = ? AND quarantined_at IS NULL", hash.toBytes())
                .isPresent());
    }

    @Override
    public boolean xorbListedIn(MerkleHash hash, String scope) throws IndexException {
        return read(() -> get(db.execute(), XORB_LISTED_IN, scope, hash.toBytes()).isPresent());
    }

    @Override
    public Optional<XorbLayout> xorb(MerkleHash hash) throws IndexException {
        return Optional.ofNullable(xorbs(List.of(hash)).get(hash));
    }

    @Override
    public Map<MerkleHash, XorbLayout> xorbs(Collection<MerkleHash> hashes) throws IndexException {
        Set<MerkleHash> wanted = new LinkedHashSet<>(hashes);
        if (wanted.isEmpty()) return new HashMap<>();
        return read(() -> {
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
        try {
            return PostgresRegistration.insertXorb(db.execute(), hash, chunks, storedBytes, now()) == 1;
        } catch (DbClientException e) {
            throw new IndexException("index write failed (" + where + "): " + rootMessage(e), e);
        }
    }

    @Override
    public void renewXorb(MerkleHash hash, long nowSeconds) throws IndexException {
        try {
            dml(db.execute(), "UPDATE xorbs SET created_at = ? WHERE hash = ? AND created_at < ?", nowSeconds,
                    hash.toBytes(), nowSeconds - RENEW_AFTER_SECONDS);
        } catch (DbClientException e) {
            throw new IndexException("index write failed (" + where + "): " + rootMessage(e), e);
        }
    }

    @Override
    public boolean hasShard(MerkleHash shardHash) throws IndexException {
        return read(() -> get(db.execute(), "SELECT 1 FROM shards WHERE hash = ?", shardHash.toBytes()).isPresent());
    }

    @Override
    public boolean registerShard(ShardCommit commit) throws IndexException {
        return write(tx -> PostgresRegistration.register(tx, commit, now()));
    }

    @Override
    public boolean rehearseRegistration(List<XorbLayout> xorbs, ShardCommit commit) throws IndexException {
        try {
            write(tx -> {
                for (XorbLayout x : xorbs) {
                    PostgresRegistration.insertXorb(tx, x.hash(), x.chunks(), x.storedBytes(), now());
                }
                PostgresRegistration.register(tx, commit, now());
                throw new RolledBack();
            });
        } catch (RolledBack expected) {
            // write() rolled the transaction back, as intended
        }
        return true;
    }

    /** Ends a rehearsal's transaction: {@link #write} rolls back on it and rethrows it. */
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
        return read(() -> {
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
        write(tx -> dml(tx,
                "INSERT INTO node_keys (id, fingerprint, recorded_at) VALUES (1, ?, ?) ON CONFLICT (id) DO NOTHING",
                fingerprint, now()));
        return read(() -> bytes(get(db.execute(),
                "SELECT fingerprint FROM node_keys WHERE id = 1").orElseThrow(), "fingerprint"));
    }

    @Override
    public boolean quarantineXorb(MerkleHash hash, long nowSeconds) throws IndexException {
        try {
            return dml(db.execute(), "UPDATE xorbs SET quarantined_at = ? WHERE hash = ? AND quarantined_at IS NULL",
                    nowSeconds, hash.toBytes()) == 1;
        } catch (DbClientException e) {
            throw new IndexException("index write failed (quarantine a xorb): " + rootMessage(e), e);
        }
    }

    @Override
    public void close() {
        db.close();
        online.close();
        pool.close();
    }
}
