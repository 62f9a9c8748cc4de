package org.openxet.testing;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Makes every insert into one table of a SQLite index fail as a full disk makes it fail: SQLite ends the
 * transaction by itself, with its own message (a trigger raising ROLLBACK). Closing it lifts the fault.
 */
public final class DiskFull implements AutoCloseable {
    private final Path db;

    private DiskFull(Path db) {
        this.db = db;
    }

    public static DiskFull on(Path db, String table) throws SQLException {
        execute(db, "CREATE TRIGGER disk_full BEFORE INSERT ON " + table
                + " BEGIN SELECT RAISE(ROLLBACK, 'database or disk is full'); END");
        return new DiskFull(db);
    }

    @Override
    public void close() throws SQLException {
        execute(db, "DROP TRIGGER disk_full");
    }

    private static void execute(Path db, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
