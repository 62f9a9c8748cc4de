package org.openxet.storage;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * One SQLite connection's prepared statements, kept for the connection's life. Preparing a statement (SQLite parses
 * and plans its text, sqlite-jdbc builds its wrapper) was a third of a file lookup's CPU and 8.7 % of the server's
 * at 2,000 requests a second (docs/BENCHMARKS.md, "Index lookups: kept SQLite statements"). A kept statement is used by one thread
 * at a time, as its connection is, and its user never closes it: closing the result set resets the statement, which
 * ends the read it was part of, and closing the {@link Lent} clears its parameters.
 */
final class SqliteStatements {
    private final Connection connection;
    /** Keyed by the statement's text: a handful of constant texts, so the map stays small. */
    private final Map<String, PreparedStatement> kept = new HashMap<>();

    SqliteStatements(Connection connection) {
        this.connection = connection;
    }

    /** The statement for {@code sql}, prepared on its first use; close what this returns, not the statement. */
    Lent lend(String sql) throws SQLException {
        PreparedStatement p = kept.get(sql);
        if (p == null) {
            p = connection.prepareStatement(sql);
            kept.put(sql, p);
        }
        return new Lent(p);
    }

    /**
     * A kept statement lent to one use. Closing it clears the parameters: SQLite holds its own copy of a bound BLOB
     * (a 100,000-term file's 2.4 MB of terms at registration) until the statement is bound again or cleared.
     */
    record Lent(PreparedStatement statement) implements AutoCloseable {
        @Override
        public void close() throws SQLException {
            statement.clearParameters();
        }
    }
}
