package org.openxet.gates;

import org.openxet.service.ServerConfig;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;

/**
 * A PostgreSQL database of the gate's own, created on the server {@code --index-url} names and dropped afterwards:
 * the gate registers fixtures and a key fingerprint, which must never land in a database that serves anything, and
 * every run starts from an empty index as the SQLite run does.
 */
final class GateDatabase implements AutoCloseable {
    /** The options it reads ({@code gates/run} refuses any other). */
    static final Set<String> OPTIONS = Set.of("keep", "index-url");

    private final String serverUrl;
    private final String name;
    private final String url;
    private final boolean keep;

    private GateDatabase(String serverUrl, String name, String url, boolean keep) {
        this.serverUrl = serverUrl;
        this.name = name;
        this.url = url;
        this.keep = keep;
    }

    /**
     * The gate's database when it runs with {@code --index-url} ({@code jdbc:postgresql://host:port/db?...}, a user
     * that may create databases), else null: the gate runs on SQLite in its data dir.
     */
    static GateDatabase fromArgs(Args args) throws SQLException {
        String serverUrl = args.string("index-url", "");
        if (serverUrl.isEmpty()) return null;
        GateDatabase db = create(serverUrl, null, args.flag("keep"));
        System.out.println("index: PostgreSQL, a database of the gate's own (" + db.name + ")");
        return db;
    }

    /** {@code config} with its index in {@code db}, or unchanged when {@code db} is null. */
    static ServerConfig on(GateDatabase db, ServerConfig config) {
        return db == null ? config
                : config.withStorage(new ServerConfig.Storage(db.url, "", "", ServerConfig.Storage.EMBEDDED.s3Region()));
    }

    /** A new database holding a copy of this one (which must have no open connections: PostgreSQL's rule). */
    GateDatabase copy() throws SQLException {
        return create(serverUrl, name, keep);
    }

    private static GateDatabase create(String serverUrl, String template, boolean keep) throws SQLException {
        int slash = serverUrl.indexOf('/', "jdbc:postgresql://".length());
        if (!serverUrl.startsWith("jdbc:postgresql://") || slash < 0) {
            throw new IllegalArgumentException("--index-url must be jdbc:postgresql://host:port/db?..., not " + serverUrl);
        }
        int query = serverUrl.indexOf('?', slash);
        String name = "openxet_gate_" + ProcessHandle.current().pid() + "_" + Long.toHexString(System.nanoTime());
        String url = serverUrl.substring(0, slash + 1) + name + (query < 0 ? "" : serverUrl.substring(query));
        execute(serverUrl, "CREATE DATABASE " + name + (template == null ? "" : " TEMPLATE " + template));
        return new GateDatabase(serverUrl, name, url, keep);
    }

    String url() {
        return url;
    }

    private static void execute(String url, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @Override
    public void close() throws SQLException {
        if (!keep) {
            execute(serverUrl, "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        }
    }
}
