package org.openxet.storage;

import io.helidon.dbclient.DbClient;
import io.helidon.dbclient.DbClientException;
import io.helidon.dbclient.DbRow;

import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.openxet.storage.Statements.dml;
import static org.openxet.storage.Statements.query;

/** The users and signing keys of nodes sharing a PostgreSQL index, in its {@code users} and {@code signing_keys}. */
final class PostgresAuthStore implements AuthStore {
    private final DbClient db;
    private final String where;

    PostgresAuthStore(DbClient db, String where) {
        this.db = db;
        this.where = where;
    }

    @Override
    public boolean shared() {
        return true;
    }

    @Override
    public List<StoredUser> users() throws IndexException {
        return run("read users", () -> {
            try (Stream<DbRow> rows = query(db.execute(),
                    "SELECT name, token_sha256, repos, access, generation, revoked FROM users ORDER BY name")) {
                return rows.map(r -> new StoredUser(r.column("name").getString(), r.column("token_sha256").getString(),
                        List.of(r.column("repos").getString().split("\n")), r.column("access").getString(),
                        PostgresRows.number(r, "generation"), r.column("revoked").get(Boolean.class))).toList();
            }
        });
    }

    @Override
    public boolean putUser(StoredUser user, boolean replace) throws IndexException {
        if (user.repos().stream().anyMatch(r -> r.contains("\n"))) {
            throw new IllegalArgumentException("a repository pattern cannot hold a line break");
        }
        String sql = "INSERT INTO users (name, token_sha256, repos, access, generation, revoked, updated_at) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?) "
                + (replace ? "ON CONFLICT (name) DO UPDATE SET token_sha256 = excluded.token_sha256, repos = excluded.repos, "
                + "access = excluded.access, generation = excluded.generation, revoked = excluded.revoked, "
                + "updated_at = excluded.updated_at"
                : "ON CONFLICT DO NOTHING");
        return run("store a user", () -> dml(db.execute(), sql, user.name(), user.tokenSha256(),
                String.join("\n", user.repos()), user.access(), user.generation(), user.revoked(),
                System.currentTimeMillis() / 1000) == 1);
    }

    @Override
    public List<StoredKey> keys() throws IndexException {
        return run("read signing keys", () -> {
            try (Stream<DbRow> rows = query(db.execute(),
                    "SELECT kid, use, algorithm, secret, created_at, retired_at FROM signing_keys ORDER BY created_at, kid")) {
                return rows.map(r -> new StoredKey(r.column("kid").getString(), r.column("use").getString(),
                        r.column("algorithm").getString(), r.column("secret").getString(), PostgresRows.number(r, "created_at"),
                        PostgresRows.number(r, "retired_at"))).toList();
            }
        });
    }

    @Override
    public boolean putKey(StoredKey key, boolean replace) throws IndexException {
        String sql = "INSERT INTO signing_keys (kid, use, algorithm, secret, created_at, retired_at) VALUES (?, ?, ?, ?, ?, ?) "
                + (replace ? "ON CONFLICT (kid) DO UPDATE SET retired_at = excluded.retired_at" : "ON CONFLICT DO NOTHING");
        return run("store a signing key", () -> dml(db.execute(), sql, key.kid(), key.use(), key.algorithm(),
                key.secret(), key.createdAt(), key.retiredAt()) == 1);
    }

    private <T> T run(String what, Supplier<T> work) throws IndexException {
        try {
            return work.get();
        } catch (DbClientException e) {
            throw new IndexException("index " + what + " failed (" + where + "): " + PostgresConnections.rootMessage(e), e);
        }
    }
}
