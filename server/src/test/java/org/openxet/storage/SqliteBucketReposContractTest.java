package org.openxet.storage;

import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/** The {@link BucketRepos} contract on the embedded SQLite index. */
class SqliteBucketReposContractTest extends BucketReposContractTest {
    @TempDir
    Path dir;

    @Override
    protected Index open() throws Exception {
        return new SqliteIndex(dir.resolve("index.sqlite"), 2);
    }

    @Override
    protected void refuseInserts(String table) throws Exception {
        SqliteIndexContractTest.refuseInserts(dir.resolve("index.sqlite"), table);
    }

    @Override
    protected void allowInserts(String table) throws Exception {
        SqliteIndexTest.sql(dir.resolve("index.sqlite"), "DROP TRIGGER refuse");
    }
}
