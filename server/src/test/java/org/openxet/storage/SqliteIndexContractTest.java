package org.openxet.storage;

import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/** The {@link Index} contract on the embedded SQLite index. */
class SqliteIndexContractTest extends IndexContractTest {
    @TempDir
    Path dir;

    @Override
    protected Index open() throws Exception {
        return new SqliteIndex(dir.resolve("index.sqlite"), 2);
    }

    @Override
    protected void refuseInserts(String table) throws Exception {
        refuseInserts(dir.resolve("index.sqlite"), table);
    }

    /** Makes every insert into {@code table} of the index file {@code index} fail inside SQLite. */
    static void refuseInserts(Path index, String table) throws Exception {
        SqliteIndexTest.sql(index, "CREATE TRIGGER refuse BEFORE INSERT ON " + table
                + " BEGIN SELECT RAISE(ABORT, 'refused'); END");
    }

    @Override
    protected void allowInserts(String table) throws Exception {
        SqliteIndexTest.sql(dir.resolve("index.sqlite"), "DROP TRIGGER refuse");
    }
}
