package org.openxet.storage;

import io.helidon.dbclient.DbClient;
import io.helidon.dbclient.DbRow;
import org.openxet.protocol.MerkleHash;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import static org.openxet.storage.PostgresRows.bytesOrNull;
import static org.openxet.storage.PostgresRows.number;
import static org.openxet.storage.PostgresRows.raw;
import static org.openxet.storage.Statements.get;
import static org.openxet.storage.Statements.query;

/**
 * {@link PostgresIndex#file}: a file's row as one scope sees it, a statement a lookup while the pool keeps up, and a
 * statement for every waiting lookup (up to {@link #BATCH}) once they queue ({@link LookupBatcher}; docs/DESIGN.md,
 * "PostgreSQL index").
 */
final class PostgresFileLookups {
    private static final String FILE = "SELECT f.size, f.sha256, f.xorb_refs, f.terms "
            + "FROM files f JOIN file_scopes s ON s.file_id = f.id AND s.scope = ? WHERE f.hash = ?";
    /** {@link #FILE} for a batch: row {@code i} answers the i-th (hash, scope), from 1. */
    private static final String FILES = "SELECT q.i, f.size, f.sha256, f.xorb_refs, f.terms "
            + "FROM unnest(?::bytea[], ?::text[]) WITH ORDINALITY AS q (hash, scope, i) "
            + "JOIN files f ON f.hash = q.hash JOIN file_scopes s ON s.file_id = f.id AND s.scope = q.scope";
    /** The most lookups one statement answers: a queue of hundreds drains in a few statements. */
    static final int BATCH = 64;

    record FileKey(MerkleHash hash, String scope) {
    }

    private final DbClient db;
    private final PostgresScans.Reads reads;
    private final LookupBatcher<FileKey, FileRecord> batcher;

    /** {@code lanes}: the most statements at once, the pool's other connections left to xorb lookups and writes. */
    PostgresFileLookups(DbClient db, int lanes, PostgresScans.Reads reads) {
        this.db = db;
        this.reads = reads;
        this.batcher = new LookupBatcher<>(lanes, BATCH, this::load);
    }

    Optional<FileRecord> file(MerkleHash fileHash, String scope) throws IndexException {
        return Optional.ofNullable(batcher.get(new FileKey(fileHash, scope)));
    }

    /** A batch: one statement, each distinct key asked once; a record decoded for each lookup. */
    List<FileRecord> load(List<FileKey> keys) throws IndexException {
        if (keys.size() == 1) {
            FileKey k = keys.getFirst();
            return reads.read(() -> Collections.singletonList(get(db.execute(), FILE, k.scope(), k.hash().toBytes())
                    .map(r -> FileRow.of(r).decode(k.hash())).orElse(null)));
        }
        List<FileKey> distinct = List.copyOf(new LinkedHashSet<>(keys));
        byte[][] hashes = raw(distinct.stream().map(FileKey::hash).toList());
        String[] scopes = distinct.stream().map(FileKey::scope).toArray(String[]::new);
        FileRow[] rows = new FileRow[distinct.size()];
        reads.read(() -> {
            try (Stream<DbRow> found = query(db.execute(), FILES, hashes, scopes)) {
                found.forEach(r -> rows[(int) number(r, "i") - 1] = FileRow.of(r));
            }
            return null;
        });
        Map<FileKey, FileRow> byKey = new HashMap<>();
        for (int i = 0; i < rows.length; i++) byKey.put(distinct.get(i), rows[i]);
        List<FileRecord> out = new ArrayList<>(keys.size());
        for (FileKey k : keys) {
            FileRow r = byKey.get(k);
            out.add(r == null ? null : r.decode(k.hash()));
        }
        return out;
    }

    /** A {@code files} row's columns, read while its statement is open. */
    private record FileRow(long size, byte[] sha256, byte[] xorbRefs, byte[] terms) {
        static FileRow of(DbRow r) {
            return new FileRow(number(r, "size"), bytesOrNull(r, "sha256"), bytesOrNull(r, "xorb_refs"),
                    bytesOrNull(r, "terms"));
        }

        FileRecord decode(MerkleHash fileHash) {
            return FileRecord.decode(fileHash, size, sha256, xorbRefs, terms);
        }
    }
}
