package org.openxet.storage;

import io.helidon.dbclient.DbExecute;
import io.helidon.dbclient.DbRow;

import java.util.Optional;
import java.util.stream.Stream;

/**
 * The PostgreSQL statements (the index's, the auth store's), each named by its own text. Helidon DB Client's
 * {@code get/query/dml(text)} name every call by hashing its text ({@code DbExecuteBase.generateName}, a SHA-256 per
 * statement run): 12 of 572 profile samples of a node at 1,000 req/s of the rig's mix, none with this
 * (docs/BENCHMARKS.md, Restart). The name only labels the statement (no interceptor or statement config reads it
 * here), so the text serves.
 */
final class Statements {
    private Statements() {
    }

    static Optional<DbRow> get(DbExecute ex, String sql, Object... params) {
        return ex.createNamedGet(sql, sql).params(params).execute();
    }

    static Stream<DbRow> query(DbExecute ex, String sql, Object... params) {
        return ex.createNamedQuery(sql, sql).params(params).execute();
    }

    static long dml(DbExecute ex, String sql, Object... params) {
        return ex.createNamedDmlStatement(sql, sql).params(params).execute();
    }
}
