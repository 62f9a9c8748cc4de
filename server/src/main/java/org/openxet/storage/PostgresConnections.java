package org.openxet.storage;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.helidon.dbclient.DbClient;
import io.helidon.dbclient.DbClientException;
import io.helidon.dbclient.DbTransaction;
import io.helidon.dbclient.jdbc.JdbcClientBuilder;
import io.helidon.dbclient.jdbc.JdbcConnectionPool;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * A {@link PostgresIndex}'s connections and how work runs on them: the HikariCP pool, opened with the schema brought
 * up to date; Helidon DB Client over it for the index's own statements; plain JDBC transactions for the code shared
 * with SQLite (the gc's queries, bucket batches); and the failures, each an {@link IndexException} naming the database
 * by its URL without the query (which may hold a password).
 */
final class PostgresConnections implements AutoCloseable {
    /** {@code pg_advisory_lock} key that serialises schema migrations across nodes (ASCII "openxet"). */
    private static final long MIGRATION_LOCK = 0x6f70656e786574L;
    /** Tries of a transaction that PostgreSQL aborted as a deadlock victim or a serialisation failure. */
    private static final int ATTEMPTS = 3;

    private final String where;
    private final HikariDataSource pool;
    private final DbClient db;

    private PostgresConnections(String where, HikariDataSource pool) {
        this.where = where;
        this.pool = pool;
        this.db = JdbcClientBuilder.create().connectionPool(new Pool(pool)).build();
    }

    /**
     * Connects (failing at once when the server cannot be reached), brings the schema up to date, and waits while an
     * offline gc holds the database ({@link PostgresCollectorLock}).
     *
     * @param jdbcUrl         {@code jdbc:postgresql://host:port/db?user=...&password=...}
     * @param applicationName what the connections call themselves, so that an offline gc can count this node's
     */
    /**
     * {@code url} as logs and messages may show it: without its query (where {@code password=} goes) and without a
     * {@code user:password@} before the host.
     */
    static String forLogs(String url) {
        int q = url.indexOf('?');
        String base = q < 0 ? url : url.substring(0, q);
        int scheme = base.indexOf("://");
        int hostStart = scheme < 0 ? 0 : scheme + 3;
        int pathStart = base.indexOf('/', hostStart);
        int at = base.lastIndexOf('@', pathStart < 0 ? base.length() : pathStart);
        return at >= hostStart ? base.substring(0, hostStart) + base.substring(at + 1) : base;
    }

    static PostgresConnections open(String jdbcUrl, int poolSize, Duration connectionTimeout, String applicationName)
            throws IndexException {
        String where = forLogs(jdbcUrl);
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(jdbcUrl);
        cfg.setMaximumPoolSize(poolSize);
        cfg.setConnectionTimeout(connectionTimeout.toMillis());
        cfg.setPoolName("openxet-index");
        // A default the URL can override: a server that vanishes without closing its connections (host down, network
        // cut) fails a call after a minute instead of the kernel's ~15 minutes of retransmissions.
        cfg.addDataSourceProperty("socketTimeout", "60");
        cfg.addDataSourceProperty("ApplicationName", applicationName);
        HikariDataSource pool;
        try {
            pool = new HikariDataSource(cfg);
        } catch (RuntimeException e) {
            throw new IndexException("cannot open PostgreSQL index at " + where + ": " + rootMessage(e), e);
        }
        try {
            migrate(pool);
            PostgresCollectorLock.awaitNone(pool, where);
        } catch (SQLException | IOException | RuntimeException e) {
            pool.close();
            throw new IndexException("cannot open PostgreSQL index at " + where + ": " + rootMessage(e), e);
        } catch (InterruptedException e) {
            pool.close();
            Thread.currentThread().interrupt();
            throw new IndexException("interrupted while waiting for openxet gc to finish on " + where, e);
        }
        return new PostgresConnections(where, pool);
    }

    /**
     * Brings the schema up to date. {@link Migrations} is plain JDBC, shared with SQLite, so this takes a connection
     * past DB Client. Nodes starting at once on an empty database would all create the tables: a session-level
     * advisory lock (Migrations commits each migration on its own) lets one migrate while the others wait and then
     * find the schema current.
     */
    private static void migrate(HikariDataSource pool) throws SQLException, IOException {
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

    /** The database's URL without its query, as every failure names it. */
    String where() {
        return where;
    }

    HikariDataSource pool() {
        return pool;
    }

    DbClient db() {
        return db;
    }

    interface Read<T> {
        T run();
    }

    /** A read through DB Client: its failure becomes an {@link IndexException}. */
    <T> T read(Read<T> work) throws IndexException {
        try {
            return work.run();
        } catch (DbClientException e) {
            throw new IndexException("index read failed (" + where + "): " + rootMessage(e), e);
        }
    }

    /** A write that is one statement outside a transaction, as {@link #read} is for reads. */
    <T> T writeStatement(Read<T> work) throws IndexException {
        try {
            return work.run();
        } catch (DbClientException e) {
            throw new IndexException("index write failed (" + where + "): " + rootMessage(e), e);
        }
    }

    interface Work<T> {
        T run(DbTransaction tx);
    }

    /**
     * One write transaction (READ COMMITTED). A registration PostgreSQL aborts as a deadlock victim or a serialisation
     * failure changed nothing and is tried again; any other failure is an {@link IndexException}. A failed commit is
     * not rolled back (DB Client has closed the connection, and whether it committed is unknown: callers check).
     * Anything else {@code work} throws is rethrown as it is, after the rollback.
     */
    <T> T write(Work<T> work) throws IndexException {
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

    interface JdbcWork<T> {
        T run(Connection c) throws SQLException;
    }

    /** Plain JDBC in one transaction on a pooled connection, as the migration is: for the queries shared with SQLite. */
    <T> T inTransaction(JdbcWork<T> work) throws IndexException {
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

    /** {@link #inTransaction}, run again when PostgreSQL aborted it as a deadlock victim or a serialisation failure. */
    <T> T inRetriedTransaction(JdbcWork<T> work) throws IndexException {
        for (int attempt = 1; ; attempt++) {
            try {
                return inTransaction(work);
            } catch (IndexException e) {
                if (attempt >= ATTEMPTS || !retryable(e)) throw e;
            }
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

    /** {@code e}'s message, and its root cause's when that is another exception (the driver's own words). */
    static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        return root == e ? String.valueOf(e.getMessage()) : e.getMessage() + ": " + root.getMessage();
    }

    @Override
    public void close() {
        db.close();
        pool.close();
    }
}
