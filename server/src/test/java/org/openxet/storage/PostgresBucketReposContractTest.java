package org.openxet.storage;

import org.junit.jupiter.api.BeforeAll;
import org.openxet.testing.PostgresServer;

/** The {@link BucketRepos} contract on PostgreSQL (a real server, see {@link PostgresServer}): one database per class. */
class PostgresBucketReposContractTest extends BucketReposContractTest {
    static String url;
    private boolean emptied;

    @BeforeAll
    static void createDatabase() {
        url = PostgresServer.get().createDatabase("buckets");
    }

    @Override
    protected Index open() throws Exception {
        PostgresIndex opened = new PostgresIndex(url, 2);
        if (!emptied) {
            PostgresIndexContractTest.truncateAll(url);
            emptied = true;
        }
        return opened;
    }

    @Override
    protected void refuseInserts(String table) throws Exception {
        PostgresIndexContractTest.refuseInserts(url, table);
    }

    @Override
    protected void allowInserts(String table) throws Exception {
        PostgresIndexContractTest.sql(url, "DROP TRIGGER refuse ON " + table);
    }
}
