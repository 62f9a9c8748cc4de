package org.openxet.storage;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.openxet.protocol.MerkleHash;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link OnlineCollection} on PostgreSQL: a session-level advisory lock per xorb (its hash's first 8 bytes), shared by
 * uploads and exclusive for the collector, and row locks for the registrations that name it.
 *
 * <p>An upload holds its lock across its object put, up to a 64 MiB S3 write: it holds a connection of a pool of its
 * own meanwhile, because an upload that held one of the index's connections and then needed another for its
 * registration could, with enough uploads at once, take the whole pool and wait for itself.
 */
final class PostgresOnlineCollection implements OnlineCollection {
    /** Xorbs the collector locks and removes in one transaction: advisory locks live in PostgreSQL's shared lock table. */
    static final int BATCH = 100;
    /** How long an upload waits for a collector that is removing its xorb (a row delete and an object delete). */
    static final Duration UPLOAD_LOCK_TIMEOUT = Duration.ofSeconds(30);

    /**
     * The lock {@link #openUploadConnections} takes and releases: a xorb whose hash begins with 8 zero bytes is the only
     * one it could hold up, for the microseconds it holds it shared.
     */
    private static final long REHEARSAL_KEY = 0;

    private final HikariDataSource uploadLocks;
    private final HikariDataSource pool;
    private final String where;

    PostgresOnlineCollection(String jdbcUrl, String applicationName, int poolSize, Duration connectionTimeout,
                             HikariDataSource pool, String where) {
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(jdbcUrl);
        cfg.setMaximumPoolSize(poolSize);
        cfg.setMinimumIdle(0);
        cfg.setConnectionTimeout(connectionTimeout.toMillis());
        cfg.setPoolName("openxet-upload-locks");
        cfg.setConnectionInitSql("SET lock_timeout = '" + UPLOAD_LOCK_TIMEOUT.toMillis() + "ms'");
        cfg.addDataSourceProperty("socketTimeout", "60");
        // Named as the index's own connections are: an offline gc counts them as a running node's.
        cfg.addDataSourceProperty("ApplicationName", applicationName);
        // Connections are opened on first use: a node that never uploads (a tool) opens none.
        cfg.setInitializationFailTimeout(-1);
        this.uploadLocks = new HikariDataSource(cfg);
        this.pool = pool;
        this.where = where;
    }

    static long key(MerkleHash hash) {
        return ByteBuffer.wrap(hash.toBytes()).getLong();
    }

    @Override
    public UploadLock lockForUpload(MerkleHash hash) throws IndexException {
        Connection c;
        try {
            c = uploadLocks.getConnection();
        } catch (SQLException e) {
            throw new IndexException("cannot reach the PostgreSQL index at " + where + ": " + PostgresConnections.rootMessage(e), e);
        }
        try (Statement s = c.createStatement()) {
            s.execute("SELECT pg_advisory_lock_shared(" + key(hash) + ")");
        } catch (SQLException e) {
            closeQuietly(c);
            throw new IndexException("xorb " + hash + " is being collected by openxet gc --online: retry ("
                    + PostgresConnections.rootMessage(e) + ")", e);
        }
        return () -> {
            // A pooled connection's session outlives its close(), and so would the lock: unlock, or drop the session.
            try (Statement s = c.createStatement()) {
                s.execute("SELECT pg_advisory_unlock_shared(" + key(hash) + ")");
                c.close();
            } catch (SQLException e) {
                uploadLocks.evictConnection(c);
            }
        };
    }

    @Override
    public void openUploadConnections() throws IndexException {
        List<Connection> held = new ArrayList<>();
        boolean unlocked = false;
        try {
            // All at once, so the pool opens as many as it may hold, not one reused.
            for (int i = 0; i < uploadLocks.getMaximumPoolSize(); i++) held.add(uploadLocks.getConnection());
            for (Connection c : held) {
                try (Statement s = c.createStatement()) {
                    s.execute("SELECT pg_advisory_lock_shared(" + REHEARSAL_KEY + ")");
                    s.execute("SELECT pg_advisory_unlock_shared(" + REHEARSAL_KEY + ")");
                }
            }
            unlocked = true;
        } catch (SQLException e) {
            throw new IndexException("cannot reach the PostgreSQL index at " + where + ": " + PostgresConnections.rootMessage(e), e);
        } finally {
            // A session that may still hold the lock is dropped, not pooled (as lockForUpload's release does).
            for (Connection c : held) {
                if (unlocked) closeQuietly(c); else uploadLocks.evictConnection(c);
            }
        }
    }

    /** Number of the upload-lock pool's connections open now. */
    int openUploadConnectionCount() {
        return uploadLocks.getHikariPoolMXBean().getTotalConnections();
    }

    @Override
    public List<Index.UnusedXorb> candidates(long registeredBefore) throws IndexException {
        // A scan only: what it finds is checked again, xorb by xorb, under that xorb's locks (collectBatch). In a
        // transaction: the driver reads a result through a cursor (setFetchSize) only with auto-commit off, and
        // otherwise fetches every file's xorb list before the first row, gigabytes at 10^7 files.
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            try {
                return UnusedXorbs.find(c, registeredBefore);
            } finally {
                c.rollback();
                c.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw new IndexException("PostgreSQL index at " + where + ": " + PostgresConnections.rootMessage(e), e);
        }
    }

    @Override
    public List<Index.UnusedXorb> collect(long registeredBefore, ObjectRemover remover)
            throws IndexException, IOException {
        List<Index.UnusedXorb> candidates = candidates(registeredBefore);
        List<Index.UnusedXorb> collected = new ArrayList<>();
        for (int at = 0; at < candidates.size(); at += BATCH) {
            collected.addAll(collectBatch(candidates.subList(at, Math.min(candidates.size(), at + BATCH)),
                    registeredBefore, remover));
        }
        return collected;
    }

    /**
     * One batch: the advisory locks of those no upload holds now (the others are being uploaded: in use), then, in
     * one transaction, their rows in id order (waiting for registrations that name them to commit), those still
     * older than the grace deleted, then their objects, then the locks released.
     */
    private List<Index.UnusedXorb> collectBatch(List<Index.UnusedXorb> batch, long registeredBefore,
                                                ObjectRemover remover) throws IndexException, IOException {
        List<Index.UnusedXorb> locked = new ArrayList<>();
        List<Index.UnusedXorb> gone = new ArrayList<>();
        try (Connection c = pool.getConnection()) {
            try {
                try (Statement s = c.createStatement()) {
                    for (Index.UnusedXorb x : batch) {
                        try (ResultSet r = s.executeQuery("SELECT pg_try_advisory_lock(" + key(x.hash()) + ")")) {
                            r.next();
                            if (r.getBoolean(1)) locked.add(x);
                        }
                    }
                }
                if (locked.isEmpty()) return gone;
                Map<MerkleHash, Index.UnusedXorb> byHash = new HashMap<>();
                for (Index.UnusedXorb x : locked) byHash.put(x.hash(), x);
                c.setAutoCommit(false);
                try {
                    List<Long> ids = new ArrayList<>();
                    // The row's own time, re-read once its lock is ours: a registration that named it since the scan
                    // renewed it (PostgresIndex#requireXorbs). A subquery on other tables would not be re-read here.
                    try (PreparedStatement p = c.prepareStatement("SELECT id, hash FROM xorbs WHERE hash = ANY(?) "
                            + "AND created_at < ? ORDER BY id FOR UPDATE")) {
                        p.setArray(1, c.createArrayOf("bytea", locked.stream().map(x -> x.hash().toBytes()).toArray(byte[][]::new)));
                        p.setLong(2, registeredBefore);
                        try (ResultSet r = p.executeQuery()) {
                            while (r.next()) {
                                ids.add(r.getLong(1));
                                gone.add(byHash.get(MerkleHash.fromBytes(r.getBytes(2))));
                            }
                        }
                    }
                    try (PreparedStatement p = c.prepareStatement("DELETE FROM xorbs WHERE id = ANY(?)")) {
                        p.setArray(1, c.createArrayOf("bigint", ids.toArray(Long[]::new)));
                        p.executeUpdate();
                    }
                    c.commit();
                } catch (SQLException | RuntimeException e) {
                    c.rollback();
                    throw e;
                } finally {
                    c.setAutoCommit(true);
                }
                // Rows first: a crash here leaves objects no row names, which a later upload of the xorb reuses
                // after validating them, never a row whose object is gone.
                for (Index.UnusedXorb x : gone) remover.remove(x.hash());
                return gone;
            } finally {
                try (Statement s = c.createStatement()) {
                    for (Index.UnusedXorb x : locked) s.execute("SELECT pg_advisory_unlock(" + key(x.hash()) + ")");
                } catch (SQLException e) {
                    // Its session would keep the locks in the pool: end the session instead.
                    pool.evictConnection(c);
                }
            }
        } catch (SQLException e) {
            throw new IndexException("PostgreSQL index at " + where + ": " + PostgresConnections.rootMessage(e), e);
        }
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException ignored) {
            // the connection is gone either way
        }
    }

    void close() {
        uploadLocks.close();
    }
}
