package org.openxet.storage;

import org.openxet.protocol.MerkleHash;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * {@link BucketRepos} in plain JDBC over the tables SQLite and PostgreSQL share (db/sqlite/0003, db/postgres/0007):
 * one set of statements, run in the transactions each index hands out ({@link Transactions}).
 */
final class JdbcBucketRepos implements BucketRepos {
    /** Units of work on one connection, committed at the end; the index decides which connection and what retries. */
    interface Transactions {
        <T> T read(Work<T> work) throws IndexException;

        <T> T write(Work<T> work) throws IndexException;
    }

    interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    /** Parameters of one IN list: well under SQLite's and PostgreSQL's limits. */
    private static final int IN_BATCH = 500;
    private static final String ENTRY_COLUMNS = "f.path, f.xet_hash, f.size, f.mtime, f.content_type, f.uploaded_at";

    private final Transactions tx;

    JdbcBucketRepos(Transactions tx) {
        this.tx = tx;
    }

    @Override
    public Optional<Info> info(String name) throws IndexException {
        return tx.read(c -> {
            try (PreparedStatement p = c.prepareStatement(
                    "SELECT private, created_at, size, total_files FROM bucket_repos "
                            + "WHERE name = ? AND deleted_at IS NULL")) {
                p.setString(1, name);
                try (ResultSet r = p.executeQuery()) {
                    if (!r.next()) return Optional.empty();
                    return Optional.of(new Info(name, r.getBoolean(1), r.getLong(2), r.getLong(3), r.getLong(4)));
                }
            }
        });
    }

    @Override
    public List<Info> list(String namespace, String after, int limit) throws IndexException {
        String prefix = namespace + "/";
        return tx.read(c -> {
            // substr, not a range: PostgreSQL compares names in the database's collation (only paths are "C").
            try (PreparedStatement p = c.prepareStatement("SELECT name, private, created_at, size, total_files "
                    + "FROM bucket_repos WHERE substr(name, 1, ?) = ? AND name > ? AND deleted_at IS NULL "
                    + "ORDER BY name LIMIT ?")) {
                p.setInt(1, prefix.length());
                p.setString(2, prefix);
                p.setString(3, after);
                p.setInt(4, limit);
                List<Info> out = new ArrayList<>();
                try (ResultSet r = p.executeQuery()) {
                    while (r.next()) {
                        out.add(new Info(r.getString(1), r.getBoolean(2), r.getLong(3), r.getLong(4), r.getLong(5)));
                    }
                }
                return out;
            }
        });
    }

    @Override
    public boolean create(String name, boolean isPrivate, long nowMillis, BeforeCommit record)
            throws IndexException, IOException {
        return recorded(() -> tx.write(c -> {
            if (!insertRepo(c, name, isPrivate, nowMillis)) return false;
            record(record, write(c, name, List.of(), nowMillis, null));
            return true;
        }));
    }

    /** Creates the bucket, or brings a deleted one's row back as a new bucket (its number goes on); false if it is. */
    private static boolean insertRepo(Connection c, String name, boolean isPrivate, long createdAt) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("INSERT INTO bucket_repos (name, private, created_at, updated_at, "
                + "size, total_files) VALUES (?, ?, ?, ?, 0, 0) ON CONFLICT (name) DO UPDATE SET "
                + "private = excluded.private, created_at = excluded.created_at, updated_at = excluded.updated_at, "
                + "size = 0, total_files = 0, deleted_at = NULL WHERE bucket_repos.deleted_at IS NOT NULL")) {
            p.setString(1, name);
            p.setBoolean(2, isPrivate);
            p.setLong(3, createdAt);
            p.setLong(4, createdAt);
            return p.executeUpdate() == 1;
        }
    }

    @Override
    public Map<MerkleHash, Long> visibleSizes(String scope, Collection<MerkleHash> files) throws IndexException {
        List<MerkleHash> all = List.copyOf(new java.util.LinkedHashSet<>(files));
        return tx.read(c -> {
            Map<MerkleHash, Long> out = new HashMap<>();
            for (int from = 0; from < all.size(); from += IN_BATCH) {
                List<MerkleHash> part = all.subList(from, Math.min(all.size(), from + IN_BATCH));
                try (PreparedStatement p = c.prepareStatement("SELECT f.hash, f.size FROM files f JOIN file_scopes s "
                        + "ON s.file_id = f.id AND s.scope = ? WHERE f.hash IN (" + marks(part.size()) + ")")) {
                    p.setString(1, scope);
                    for (int i = 0; i < part.size(); i++) p.setBytes(i + 2, part.get(i).toBytes());
                    try (ResultSet r = p.executeQuery()) {
                        while (r.next()) out.put(MerkleHash.fromBytes(r.getBytes(1)), r.getLong(2));
                    }
                }
            }
            return out;
        });
    }

    @Override
    public void apply(String name, List<Change> changes, long nowMillis, BeforeCommit record)
            throws IndexException, IOException {
        recorded(() -> tx.write(c -> {
            insertRepo(c, name, true, nowMillis);
            record(record, write(c, name, changes, nowMillis, null));
            return null;
        }));
    }

    @Override
    public boolean delete(String name, long nowMillis, BeforeCommit record) throws IndexException, IOException {
        return recorded(() -> tx.write(c -> {
            Applied applied = tombstone(c, name, nowMillis, null);
            if (applied == null) return false;
            record(record, applied);
            return true;
        }));
    }

    /** Marks {@code name} deleted and removes its paths; null when it is not there. */
    private static Applied tombstone(Connection c, String name, long nowMillis, Long seq) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("UPDATE bucket_repos SET deleted_at = ?, updated_at = ?, "
                + "size = 0, total_files = 0, seq = " + (seq == null ? "seq + 1" : "?")
                + " WHERE name = ? AND deleted_at IS NULL")) {
            int i = 1;
            p.setLong(i++, nowMillis);
            p.setLong(i++, nowMillis);
            if (seq != null) p.setLong(i++, seq);
            p.setString(i, name);
            if (p.executeUpdate() == 0) return null;
        }
        try (PreparedStatement p = c.prepareStatement(
                "SELECT id, seq, private, created_at FROM bucket_repos WHERE name = ?")) {
            p.setString(1, name);
            try (ResultSet r = p.executeQuery()) {
                r.next();
                try (PreparedStatement d = c.prepareStatement("DELETE FROM bucket_repo_files WHERE repo_id = ?")) {
                    d.setLong(1, r.getLong(1));
                    d.executeUpdate();
                }
                return new Applied(name, r.getLong(2), r.getBoolean(3), r.getLong(4), nowMillis, List.of(), true);
            }
        }
    }

    @Override
    public void replay(Applied applied) throws IndexException {
        tx.write(c -> {
            if (applied.deletesBucket()) return tombstone(c, applied.name(), applied.at(), applied.seq());
            insertRepo(c, applied.name(), applied.isPrivate(), applied.createdAt());
            return write(c, applied.name(), applied.changes(), applied.at(), applied.seq());
        });
    }

    /** A write of the index whose {@link BeforeCommit} may fail: its IOException, not an index failure. */
    private interface RecordedWrite<T> {
        T run() throws IndexException;
    }

    private static <T> T recorded(RecordedWrite<T> write) throws IndexException, IOException {
        try {
            return write.run();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /** Calls {@code record} inside the transaction; its IOException leaves as unchecked, which rolls the write back. */
    private static void record(BeforeCommit record, Applied applied) {
        try {
            record.accept(applied);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Applies {@code changes} to the existing bucket {@code name} at {@code nowMillis} and moves its sequence number
     * on by one ({@code seq} null) or to {@code seq} (a replay).
     */
    private static Applied write(Connection c, String name, List<Change> changes, long nowMillis, Long seq)
            throws SQLException {
        // Takes the bucket's row lock on PostgreSQL (SQLite has one writer anyway): two batches on one bucket run
        // one after the other, so each one's totals and sequence number start from the other's.
        try (PreparedStatement p = c.prepareStatement(
                "UPDATE bucket_repos SET updated_at = ?, seq = " + (seq == null ? "seq + 1" : "?") + " WHERE name = ?")) {
            int i = 1;
            p.setLong(i++, nowMillis);
            if (seq != null) p.setLong(i++, seq);
            p.setString(i, name);
            p.executeUpdate();
        }
        Applied applied;
        long repo;
        try (PreparedStatement p = c.prepareStatement(
                "SELECT id, seq, private, created_at FROM bucket_repos WHERE name = ?")) {
            p.setString(1, name);
            try (ResultSet r = p.executeQuery()) {
                if (!r.next()) throw new SQLException("bucket " + name + " vanished inside its transaction");
                repo = r.getLong(1);
                applied = new Applied(name, r.getLong(2), r.getBoolean(3), r.getLong(4), nowMillis, List.copyOf(changes));
            }
        }
        long sizeDelta = 0;
        long filesDelta = 0;
        try (PreparedStatement old = c.prepareStatement(
                "SELECT size FROM bucket_repo_files WHERE repo_id = ? AND path = ?");
             PreparedStatement put = c.prepareStatement("INSERT INTO bucket_repo_files (repo_id, path, xet_hash, "
                     + "size, mtime, content_type, uploaded_at) VALUES (?, ?, ?, ?, ?, ?, ?) "
                     + "ON CONFLICT (repo_id, path) DO UPDATE SET xet_hash = excluded.xet_hash, size = excluded.size, "
                     + "mtime = excluded.mtime, content_type = excluded.content_type, uploaded_at = excluded.uploaded_at");
             PreparedStatement delete = c.prepareStatement(
                     "DELETE FROM bucket_repo_files WHERE repo_id = ? AND path = ?");
             PreparedStatement grant = c.prepareStatement("INSERT INTO file_scopes (scope, file_id) "
                     + "SELECT ?, id FROM files WHERE hash = ? ON CONFLICT DO NOTHING")) {
            for (Change change : changes) {
                old.setLong(1, repo);
                old.setString(2, change.path());
                Long before = null;
                try (ResultSet r = old.executeQuery()) {
                    if (r.next()) before = r.getLong(1);
                }
                switch (change) {
                    case Put f -> {
                        put.setLong(1, repo);
                        put.setString(2, f.path());
                        put.setBytes(3, f.xetHash().toBytes());
                        put.setLong(4, f.size());
                        put.setLong(5, f.mtime());
                        put.setString(6, f.contentType());
                        put.setLong(7, nowMillis);
                        put.executeUpdate();
                        sizeDelta += f.size() - (before == null ? 0 : before);
                        filesDelta += before == null ? 1 : 0;
                        if (f.grant()) {
                            grant.setString(1, "buckets/" + name);
                            grant.setBytes(2, f.xetHash().toBytes());
                            grant.executeUpdate();
                        }
                    }
                    case Delete d -> {
                        if (before != null) {
                            delete.setLong(1, repo);
                            delete.setString(2, d.path());
                            delete.executeUpdate();
                            sizeDelta -= before;
                            filesDelta--;
                        }
                    }
                }
            }
        }
        try (PreparedStatement p = c.prepareStatement(
                "UPDATE bucket_repos SET size = size + ?, total_files = total_files + ? WHERE id = ?")) {
            p.setLong(1, sizeDelta);
            p.setLong(2, filesDelta);
            p.setLong(3, repo);
            p.executeUpdate();
        }
        return applied;
    }

    @Override
    public List<Entry> range(String name, String from, boolean inclusive, String below, int limit) throws IndexException {
        return tx.read(c -> {
            String sql = "SELECT " + ENTRY_COLUMNS + " FROM bucket_repo_files f JOIN bucket_repos b ON b.id = f.repo_id "
                    + "WHERE b.name = ? AND f.path " + (inclusive ? ">=" : ">") + " ?"
                    + (below == null ? "" : " AND f.path < ?") + " ORDER BY f.path LIMIT ?";
            try (PreparedStatement p = c.prepareStatement(sql)) {
                int i = 1;
                p.setString(i++, name);
                p.setString(i++, from);
                if (below != null) p.setString(i++, below);
                p.setInt(i, limit);
                return entries(p);
            }
        });
    }

    @Override
    public List<Entry> lookup(String name, Collection<String> paths) throws IndexException {
        List<String> all = List.copyOf(new java.util.LinkedHashSet<>(paths));
        return tx.read(c -> {
            List<Entry> out = new ArrayList<>();
            for (int from = 0; from < all.size(); from += IN_BATCH) {
                List<String> part = all.subList(from, Math.min(all.size(), from + IN_BATCH));
                try (PreparedStatement p = c.prepareStatement("SELECT " + ENTRY_COLUMNS + " FROM bucket_repo_files f "
                        + "JOIN bucket_repos b ON b.id = f.repo_id WHERE b.name = ? AND f.path IN ("
                        + marks(part.size()) + ") ORDER BY f.path")) {
                    p.setString(1, name);
                    for (int i = 0; i < part.size(); i++) p.setString(i + 2, part.get(i));
                    out.addAll(entries(p));
                }
            }
            return out;
        });
    }

    /** A scanned row: its bucket's id (where the next page starts) and the entry. */
    private record Scanned(long repoId, Located located) {
    }

    @Override
    public void eachEntry(Consumer<Located> each) throws IndexException {
        long repo = -1;
        String after = "";
        while (true) {
            long fromRepo = repo;
            String fromPath = after;
            List<Scanned> page = tx.read(c -> {
                try (PreparedStatement p = c.prepareStatement("SELECT b.id, b.name, " + ENTRY_COLUMNS
                        + " FROM bucket_repo_files f JOIN bucket_repos b ON b.id = f.repo_id "
                        + "WHERE f.repo_id > ? OR (f.repo_id = ? AND f.path > ?) ORDER BY f.repo_id, f.path LIMIT ?")) {
                    p.setLong(1, fromRepo);
                    p.setLong(2, fromRepo);
                    p.setString(3, fromPath);
                    p.setInt(4, IndexScans.SCAN_PAGE);
                    List<Scanned> rows = new ArrayList<>();
                    try (ResultSet r = p.executeQuery()) {
                        while (r.next()) rows.add(new Scanned(r.getLong(1), new Located(r.getString(2), entry(r, 3))));
                    }
                    return rows;
                }
            });
            for (Scanned s : page) {
                repo = s.repoId();
                after = s.located().entry().path();
                each.accept(s.located());
            }
            if (page.size() < IndexScans.SCAN_PAGE) return;
        }
    }

    @Override
    public Map<String, Long> rowCounts() throws IndexException {
        return tx.read(c -> {
            Map<String, Long> out = new LinkedHashMap<>();
            for (String t : List.of("bucket_repos", "bucket_repo_files")) {
                try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT COUNT(*) FROM " + t)) {
                    r.next();
                    out.put(t, r.getLong(1));
                }
            }
            return out;
        });
    }

    private static List<Entry> entries(PreparedStatement p) throws SQLException {
        List<Entry> out = new ArrayList<>();
        try (ResultSet r = p.executeQuery()) {
            while (r.next()) out.add(entry(r, 1));
        }
        return out;
    }

    /** The entry whose six columns start at {@code first}. */
    private static Entry entry(ResultSet r, int first) throws SQLException {
        return new Entry(r.getString(first), MerkleHash.fromBytes(r.getBytes(first + 1)), r.getLong(first + 2),
                r.getLong(first + 3), r.getString(first + 4), r.getLong(first + 5));
    }

    private static String marks(int n) {
        return String.join(", ", java.util.Collections.nCopies(n, "?"));
    }
}
