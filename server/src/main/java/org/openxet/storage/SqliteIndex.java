package org.openxet.storage;

import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.xorb.ChunkTable;
import org.openxet.storage.SqliteStatements.Lent;
import org.sqlite.SQLiteConfig;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The embedded index: one SQLite file in WAL mode with {@code synchronous=FULL}, so a committed registration survives
 * {@code kill -9} and power loss. SQLite has one writer at a time, so writes share one connection under a lock;
 * reads use a small pool of their own connections and run concurrently with the writer (WAL).
 */
public final class SqliteIndex implements Index {
    private final String url;
    private final ReentrantLock writeLock = new ReentrantLock();
    /** Guarded by {@link #writeLock}; null after a failed write until the next write opens a fresh one. */
    private Connection writer;
    private boolean closed;
    private final BlockingQueue<Connection> readers;
    private final List<Connection> readerConnections = new ArrayList<>();
    /** Each open connection's kept statements, made at its first kept statement; a discarded writer's go with it. */
    private final Map<Connection, SqliteStatements> statements = new ConcurrentHashMap<>();
    private final BucketRepos bucketRepos = new JdbcBucketRepos(new JdbcBucketRepos.Transactions() {
        @Override
        public <T> T read(JdbcBucketRepos.Work<T> work) throws IndexException {
            return SqliteIndex.this.read(work::run);
        }

        @Override
        public <T> T write(JdbcBucketRepos.Work<T> work) throws IndexException {
            return SqliteIndex.this.write(work::run);
        }
    });
    private final IndexScans scans = new SqliteScans(this::read);
    private final SqliteRegistration registration = new SqliteRegistration(this::lend);

    public SqliteIndex(Path file, int readerCount) throws IndexException {
        try {
            OwnerOnly.directories(file.toAbsolutePath().getParent());
            url = "jdbc:sqlite:" + file.toAbsolutePath();
            writer = open(url, false);
            // SQLite creates the file with the process's umask, and its -wal and -shm files with the file's own mode.
            OwnerOnly.restrict(file);
            Migrations.apply(writer, "sqlite", Migrations.SQLITE);
            writer.setAutoCommit(false);
            readers = new ArrayBlockingQueue<>(readerCount);
            for (int i = 0; i < readerCount; i++) {
                Connection c = open(url, true);
                readerConnections.add(c);
                readers.add(c);
            }
        } catch (SQLException | IOException e) {
            close(); // the connections opened before the failure
            throw new IndexException("cannot open SQLite index at " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * A consistent copy of the index file {@code live} at {@code dest} ({@code VACUUM INTO}), taken beside a server
     * that keeps writing: one read transaction, so the copy is the index as of one commit. Opens no {@link SqliteIndex}
     * on {@code live} (which would apply this build's migrations to another process's index).
     */
    public static void snapshot(Path live, Path dest) throws IndexException {
        if (!java.nio.file.Files.isRegularFile(live)) {
            throw new IndexException("no SQLite index at " + live, null);
        }
        SQLiteConfig cfg = new SQLiteConfig();
        cfg.setBusyTimeout(30_000);
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + live.toAbsolutePath(), cfg.toProperties());
             PreparedStatement p = c.prepareStatement("VACUUM INTO ?")) {
            p.setString(1, dest.toAbsolutePath().toString());
            p.execute();
        } catch (SQLException e) {
            throw new IndexException("cannot copy the SQLite index " + live + " to " + dest + ": " + e.getMessage(), e);
        }
    }

    private Connection open(String url, boolean readOnly) throws SQLException {
        SQLiteConfig cfg = new SQLiteConfig();
        cfg.setJournalMode(SQLiteConfig.JournalMode.WAL);
        cfg.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
        cfg.enforceForeignKeys(true);
        cfg.setBusyTimeout(30_000);
        // Reads touch large BLOBs (a 100k-term file is 2.4 MB): give the page cache room.
        cfg.setCacheSize(-65536);
        Connection c = DriverManager.getConnection(url, cfg.toProperties());
        if (readOnly) {
            try (Statement s = c.createStatement()) {
                s.execute("PRAGMA query_only = ON");
            }
        }
        return c;
    }

    private Connection openWriter() throws SQLException {
        Connection c = open(url, false);
        try {
            c.setAutoCommit(false);
        } catch (SQLException e) {
            c.close();
            throw e;
        }
        return c;
    }

    /** {@code c}'s kept statement for {@code sql} (c is a reader taken from the pool, or the writer under its lock). */
    private Lent lend(Connection c, String sql) throws SQLException {
        return statements.computeIfAbsent(c, SqliteStatements::new).lend(sql);
    }

    /** A read-only unit of work on a pooled connection. */
    interface Read<T> {
        T run(Connection c) throws SQLException;
    }

    private <T> T read(Read<T> work) throws IndexException {
        Connection c;
        try {
            c = readers.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IndexException("interrupted waiting for an index connection", e);
        }
        try {
            return work.run(c);
        } catch (SQLException e) {
            throw new IndexException("index read failed: " + e.getMessage(), e);
        } finally {
            readers.add(c);
        }
    }

    /**
     * A write transaction on the single writer connection. A failed write (any exception or Error) never reuses that
     * connection: when SQLite has already ended the transaction by itself (SQLITE_FULL, SQLITE_IOERR), sqlite-jdbc's
     * rollback() fails before it issues its next BEGIN and leaves the connection in autocommit, so every later write
     * would commit statement by statement and a registration could be left half-written. Closing the connection rolls
     * back whatever SQLite still has open; the next write opens a fresh one with the same pragmas.
     */
    private <T> T write(Read<T> work) throws IndexException {
        writeLock.lock();
        try {
            if (closed) {
                throw new IndexException("index is closed", null);
            }
            if (writer == null) {
                writer = openWriter();
            }
            try {
                T result = work.run(writer);
                writer.commit();
                return result;
            } catch (Throwable e) {
                discardWriter(e);
                throw e;
            }
        } catch (SQLException e) {
            throw new IndexException("index write failed: " + e.getMessage(), e);
        } finally {
            writeLock.unlock();
        }
    }

    private void discardWriter(Throwable cause) {
        Connection c = writer;
        writer = null;
        statements.remove(c);
        try {
            c.close();
        } catch (SQLException suppressed) {
            cause.addSuppressed(suppressed);
        }
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
        return read(c -> {
            try (Lent kept = lend(c, "SELECT 1 FROM xorbs WHERE hash = ? AND quarantined_at IS NULL")) {
                PreparedStatement p = kept.statement();
                p.setBytes(1, hash.toBytes());
                try (ResultSet r = p.executeQuery()) {
                    return r.next();
                }
            }
        });
    }

    @Override
    public boolean xorbListedIn(MerkleHash hash, String scope) throws IndexException {
        return read(c -> {
            try (Lent kept = lend(c, "SELECT 1 FROM xorbs x JOIN shard_xorbs sx ON sx.xorb_id = x.id "
                    + "JOIN shard_scopes s ON s.shard_id = sx.shard_id AND s.scope = ? WHERE x.hash = ? AND x.quarantined_at IS NULL"
                    + " LIMIT 1")) {
                PreparedStatement p = kept.statement();
                p.setString(1, scope);
                p.setBytes(2, hash.toBytes());
                try (ResultSet r = p.executeQuery()) {
                    return r.next();
                }
            }
        });
    }

    @Override
    public Optional<XorbLayout> xorb(MerkleHash hash) throws IndexException {
        return Optional.ofNullable(xorbs(List.of(hash)).get(hash));
    }

    @Override
    public Map<MerkleHash, XorbLayout> xorbs(Collection<MerkleHash> hashes) throws IndexException {
        return read(c -> {
            Map<MerkleHash, XorbLayout> out = new HashMap<>();
            try (Lent kept = lend(c,
                    "SELECT chunk_count, chunk_hashes, layout, stored_bytes FROM xorbs WHERE hash = ? AND quarantined_at IS NULL")) {
                PreparedStatement p = kept.statement();
                for (MerkleHash h : hashes) {
                    if (out.containsKey(h)) continue;
                    p.setBytes(1, h.toBytes());
                    try (ResultSet r = p.executeQuery()) {
                        if (r.next()) {
                            out.put(h, layout(h, r.getInt(1), r.getBytes(2), r.getBytes(3), r.getLong(4)));
                        }
                    }
                }
            }
            return out;
        });
    }

    private static XorbLayout layout(MerkleHash h, int n, byte[] hashes, byte[] layout, long stored) {
        return new XorbLayout(h, new ChunkTable(n, hashes, Packing.ints(layout, 0, n), Packing.ints(layout, n, n)), stored);
    }

    @Override
    public boolean putXorb(MerkleHash hash, ChunkTable chunks, long storedBytes) throws IndexException {
        return write(c -> registration.putXorb(c, hash, chunks, storedBytes, now()));
    }

    @Override
    public void renewXorb(MerkleHash hash, long nowSeconds) throws IndexException {
        write(c -> {
            try (Lent kept = lend(c, "UPDATE xorbs SET created_at = ? WHERE hash = ? AND created_at < ?")) {
                PreparedStatement p = kept.statement();
                p.setLong(1, nowSeconds);
                p.setBytes(2, hash.toBytes());
                p.setLong(3, nowSeconds - RENEW_AFTER_SECONDS);
                return p.executeUpdate();
            }
        });
    }

    @Override
    public boolean hasShard(MerkleHash shardHash) throws IndexException {
        return read(c -> {
            try (Lent kept = lend(c, "SELECT 1 FROM shards WHERE hash = ?")) {
                PreparedStatement p = kept.statement();
                p.setBytes(1, shardHash.toBytes());
                try (ResultSet r = p.executeQuery()) {
                    return r.next();
                }
            }
        });
    }

    @Override
    public boolean registerShard(ShardCommit commit) throws IndexException {
        return write(c -> registration.registerShard(c, commit, now()));
    }

    @Override
    public Optional<FileRecord> file(MerkleHash fileHash, String scope) throws IndexException {
        return read(c -> {
            try (Lent kept = lend(c, "SELECT f.size, f.sha256, f.xorb_refs, f.terms "
                    + "FROM files f JOIN file_scopes s ON s.file_id = f.id AND s.scope = ? WHERE f.hash = ?")) {
                PreparedStatement p = kept.statement();
                p.setString(1, scope);
                p.setBytes(2, fileHash.toBytes());
                try (ResultSet r = p.executeQuery()) {
                    if (!r.next()) return Optional.empty();
                    return Optional.of(FileRecord.decode(fileHash, r.getLong(1), r.getBytes(2), r.getBytes(3),
                            r.getBytes(4)));
                }
            }
        });
    }

    @Override
    public List<XorbLayout> dedup(MerkleHash chunkHash, String scope, int maxXorbs) throws IndexException {
        return read(c -> {
            String sql = scope == null
                    ? "SELECT d.shard_id, d.xorb_id FROM dedup_chunks d WHERE d.chunk_hash = ? ORDER BY d.shard_id DESC LIMIT 1"
                    : "SELECT d.shard_id, d.xorb_id FROM dedup_chunks d JOIN shard_scopes s ON s.shard_id = d.shard_id "
                    + "AND s.scope = ? WHERE d.chunk_hash = ? ORDER BY d.shard_id DESC LIMIT 1";
            long shardId;
            long xorbId;
            try (Lent kept = lend(c, sql)) {
                PreparedStatement p = kept.statement();
                int i = 1;
                if (scope != null) p.setString(i++, scope);
                p.setBytes(i, chunkHash.toBytes());
                try (ResultSet r = p.executeQuery()) {
                    if (!r.next()) return List.of();
                    shardId = r.getLong(1);
                    xorbId = r.getLong(2);
                }
            }
            Map<Long, XorbLayout> out = new LinkedHashMap<>();
            try (Lent kept = lend(c,
                    "SELECT id, hash, chunk_count, chunk_hashes, layout, stored_bytes FROM xorbs WHERE id = ?"
                            + " AND quarantined_at IS NULL UNION ALL "
                            + "SELECT * FROM (SELECT x.id, x.hash, x.chunk_count, x.chunk_hashes, x.layout, x.stored_bytes "
                            + "FROM shard_xorbs sx JOIN xorbs x ON x.id = sx.xorb_id WHERE sx.shard_id = ? AND x.id <> ?"
                            + " AND x.quarantined_at IS NULL LIMIT ?)")) {
                PreparedStatement p = kept.statement();
                p.setLong(1, xorbId);
                p.setLong(2, shardId);
                p.setLong(3, xorbId);
                p.setInt(4, Math.max(0, maxXorbs - 1));
                try (ResultSet r = p.executeQuery()) {
                    while (r.next()) {
                        MerkleHash h = MerkleHash.fromBytes(r.getBytes(2));
                        out.putIfAbsent(r.getLong(1), layout(h, r.getInt(3), r.getBytes(4), r.getBytes(5), r.getLong(6)));
                    }
                }
            }
            return new ArrayList<>(out.values());
        });
    }

    @Override
    public boolean quarantineXorb(MerkleHash hash, long nowSeconds) throws IndexException {
        return write(c -> {
            try (Lent kept = lend(c, "UPDATE xorbs SET quarantined_at = ? WHERE hash = ?"
                    + " AND quarantined_at IS NULL")) {
                PreparedStatement p = kept.statement();
                p.setLong(1, nowSeconds);
                p.setBytes(2, hash.toBytes());
                return p.executeUpdate() == 1;
            }
        });
    }

    /** Nothing to take: the caller holds the data dir's lock, so no server registers meanwhile. */
    @Override
    public Collector collector() {
        return new Collector() {
            @Override
            public List<UnusedXorb> unusedXorbs(long registeredBefore) throws IndexException {
                return read(c -> UnusedXorbs.find(c, registeredBefore));
            }

            @Override
            public List<UnusedXorb> forgetUnusedXorbs(long registeredBefore) throws IndexException {
                // One write transaction finds and deletes: SQLite's single writer lock keeps any registration from
                // slipping in between, and the reference scans run once, not once per xorb.
                return write(c -> UnusedXorbs.forget(c, registeredBefore));
            }

            @Override
            public void close() {
            }
        };
    }

    @Override
    public void close() {
        List<Connection> all = new ArrayList<>(readerConnections);
        writeLock.lock();
        try {
            if (writer != null) all.add(writer);
            writer = null;
            closed = true;
        } finally {
            writeLock.unlock();
        }
        for (Connection c : all) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // closing at shutdown: nothing left to do with the error
            }
        }
    }
}
