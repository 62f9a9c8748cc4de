package org.openxet.storage;

import com.zaxxer.hikari.HikariDataSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * The proof an offline {@code openxet gc} needs on an index several nodes share: no other openxet process is connected
 * to the database, and none can start while gc runs. gc holds the collector's advisory lock exclusively; every index
 * that opens takes it shared for a moment once its pool is connected, so a node that starts during gc waits for it,
 * and one that connected first makes gc refuse: no order of the two lets both run.
 */
final class PostgresCollectorLock {
    /** {@code pg_advisory_lock} key of the collector ("openxgc"). */
    private static final long KEY = 0x6f70656e786763L;
    /** Every connection of every index names itself {@code openxet/<id>}: gc counts the other indexes' connections. */
    static final String APPLICATION_PREFIX = "openxet/";
    /** How often an opening index looks again whether gc has finished. */
    private static final Duration POLL = Duration.ofSeconds(1);
    /** How long gc waits for the connections of nodes that were just stopped to leave {@code pg_stat_activity}. */
    static final Duration STOPPED_NODE_GRACE = Duration.ofSeconds(2);
    private static final System.Logger LOG = System.getLogger(PostgresCollectorLock.class.getName());

    private PostgresCollectorLock() {
    }

    /**
     * Returns once no {@code openxet gc} runs on this database, so a node never starts mid-collection. The pool's
     * connections are open by now: a gc that starts later sees them and refuses to run.
     */
    static void awaitNone(HikariDataSource pool, String where) throws SQLException, InterruptedException {
        boolean said = false;
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            while (true) {
                try (var r = s.executeQuery("SELECT pg_try_advisory_lock_shared(" + KEY + ")")) {
                    r.next();
                    if (r.getBoolean(1)) break;
                }
                if (!said) {
                    LOG.log(System.Logger.Level.WARNING, "openxet gc is running on the index at " + where
                            + "; waiting for it to finish before starting");
                    said = true;
                }
                Thread.sleep(POLL.toMillis());
            }
            // Taken only to see that gc is not running: released at once (the session outlives the pooled close).
            s.execute("SELECT pg_advisory_unlock_shared(" + KEY + ")");
        }
    }

    /**
     * Takes the lock exclusively (no node can start) and checks that no openxet process but {@code applicationName}
     * has a connection to this database (no node runs). Returns the connection holding it, for {@link #release}.
     */
    static Connection acquire(HikariDataSource pool, String applicationName, String where) throws IndexException {
        Connection c;
        try {
            c = pool.getConnection();
        } catch (SQLException e) {
            throw new IndexException("cannot reach the PostgreSQL index at " + where + ": " + PostgresConnections.rootMessage(e), e);
        }
        // A pooled connection's session outlives its close(), and so would a lock left on it: every path unlocks.
        boolean locked = false;
        try (Statement s = c.createStatement()) {
            try (var r = s.executeQuery("SELECT pg_try_advisory_lock(" + KEY + ")")) {
                r.next();
                locked = r.getBoolean(1);
            }
            if (!locked) {
                throw new IndexException("another openxet gc is running on the index at " + where
                        + ", or a node is starting", null);
            }
            // A node stopped a moment ago may still be listed: PostgreSQL ends a closed connection's backend
            // asynchronously. With the lock held no node can start, so the count can only fall: look again for a
            // while before refusing (a running node's pool keeps its connections).
            long deadline = System.nanoTime() + STOPPED_NODE_GRACE.toNanos();
            while (true) {
                try (var r = s.executeQuery("SELECT count(*), coalesce(string_agg(DISTINCT coalesce(host(client_addr), "
                        + "'local socket'), ', '), '') FROM pg_stat_activity WHERE datname = current_database() "
                        + "AND application_name LIKE '" + APPLICATION_PREFIX + "%' AND application_name <> '"
                        + applicationName + "'")) {
                    r.next();
                    long others = r.getLong(1);
                    if (others == 0) {
                        break;
                    }
                    if (System.nanoTime() > deadline) {
                        throw new IndexException(others + " connection" + (others == 1 ? "" : "s") + " of running"
                                + " openxet nodes (from " + r.getString(2) + ") use the index at " + where
                                + ": stop every node before gc", null);
                    }
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IndexException("interrupted while waiting for stopped nodes' connections to end", e);
                }
            }
        } catch (SQLException | IndexException | RuntimeException e) {
            try {
                if (locked) {
                    release(c);
                } else {
                    c.close();
                }
            } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
            }
            if (e instanceof IndexException ie) throw ie;
            throw new IndexException("cannot take the collector lock on " + where + ": " + PostgresConnections.rootMessage(e), e);
        }
        return c;
    }

    /** Releases the lock on the connection holding it, then returns the connection to the pool. */
    static void release(Connection c) throws SQLException {
        try (c; Statement s = c.createStatement()) {
            s.execute("SELECT pg_advisory_unlock(" + KEY + ")");
        }
    }
}
