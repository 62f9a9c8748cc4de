package org.openxet.storage;

import org.junit.jupiter.api.BeforeAll;
import org.openxet.testing.PostgresServer;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

/** The {@link Index} contract on PostgreSQL (a real server, see {@link PostgresServer}): one database per class. */
class PostgresIndexContractTest extends IndexContractTest {
    static String url;
    private boolean emptied;

    @BeforeAll
    static void createDatabase() {
        url = PostgresServer.get().createDatabase("contract");
    }

    @Override
    protected Index open() throws Exception {
        PostgresIndex opened = new PostgresIndex(url, 2);
        if (!emptied) {
            // The schema exists now; what the previous test registered goes, ids start again at 1.
            truncateAll(url);
            emptied = true;
        }
        return opened;
    }

    static void sql(String statement) throws Exception {
        sql(url, statement);
    }

    static void sql(String url, String statement) throws Exception {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }

    /** Every table of the index emptied, ids starting again at 1. */
    static void truncateAll(String url) throws Exception {
        sql(url, "TRUNCATE bucket_repo_files, bucket_repos, xorbs, shards, shard_scopes, shard_xorbs, files, file_scopes,"
                + " dedup_chunks RESTART IDENTITY");
    }

    /** Makes every insert into {@code table} of the database at {@code url} fail inside PostgreSQL. */
    static void refuseInserts(String url, String table) throws Exception {
        sql(url, "CREATE OR REPLACE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$");
        sql(url, "CREATE TRIGGER refuse BEFORE INSERT ON " + table + " FOR EACH ROW EXECUTE FUNCTION refuse()");
    }

    @Override
    protected void refuseInserts(String table) throws Exception {
        refuseInserts(url, table);
    }

    @Override
    protected void allowInserts(String table) throws Exception {
        sql("DROP TRIGGER refuse ON " + table);
    }
}
