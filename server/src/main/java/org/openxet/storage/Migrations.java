package org.openxet.storage;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Applies the versioned, append-only SQL migrations of one dialect ({@code /db/<dialect>/NNNN_name.sql}) in order,
 * each in its own transaction, recording them in {@code schema_migrations}. A landed migration is never edited.
 */
final class Migrations {
    /** The migrations that exist, in order; adding one means adding a file and a line here. */
    static final List<String> SQLITE = List.of("0001_init", "0002_quarantine", "0003_bucket_repos",
            "0004_bucket_repos_seq");
    static final List<String> POSTGRES = List.of("0001_init", "0002_node_keys", "0003_files_terms_uncompressed", "0004_users",
            "0005_quarantine", "0006_auth", "0007_bucket_repos", "0008_bucket_repos_seq");

    private Migrations() {
    }

    static void apply(Connection c, String dialect, List<String> names) throws SQLException, IOException {
        boolean auto = c.getAutoCommit();
        c.setAutoCommit(true);
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                    + "applied_at BIGINT NOT NULL)");
        }
        int current = 0;
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT MAX(version) FROM schema_migrations")) {
            if (r.next()) current = r.getInt(1);
        }
        if (current > names.size()) {
            throw new SQLException("index schema version " + current + " is newer than this openxet (" + names.size() + ")");
        }
        c.setAutoCommit(false);
        try {
            for (int v = current + 1; v <= names.size(); v++) {
                String name = names.get(v - 1);
                try (Statement s = c.createStatement()) {
                    for (String stmt : statements(load(dialect, name))) {
                        s.execute(stmt);
                    }
                }
                try (PreparedStatement p = c.prepareStatement(
                        "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)")) {
                    p.setInt(1, v);
                    p.setString(2, name);
                    p.setLong(3, System.currentTimeMillis() / 1000);
                    p.executeUpdate();
                }
                c.commit();
            }
        } catch (SQLException | IOException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(auto);
        }
    }

    private static String load(String dialect, String name) throws IOException {
        String path = "/db/" + dialect + "/" + name + ".sql";
        try (InputStream in = Migrations.class.getResourceAsStream(path)) {
            if (in == null) throw new IOException("missing migration " + path);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** Splits a script on semicolons that end a line, dropping {@code --} comment lines. */
    static List<String> statements(String script) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        for (String line : script.split("\n")) {
            String t = line.strip();
            if (t.startsWith("--") || t.isEmpty()) continue;
            cur.append(line).append('\n');
            if (t.endsWith(";")) {
                out.add(cur.toString().strip().replaceAll(";$", ""));
                cur.setLength(0);
            }
        }
        if (!cur.toString().isBlank()) out.add(cur.toString().strip());
        return out;
    }
}
