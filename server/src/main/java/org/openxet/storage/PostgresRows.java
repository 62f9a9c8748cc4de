package org.openxet.storage;

import io.helidon.dbclient.DbRow;
import org.openxet.protocol.MerkleHash;

import java.util.Collection;

/** Reading DB Client rows of the PostgreSQL index, and hashes as its {@code bytea[]} parameters. */
final class PostgresRows {
    private PostgresRows() {
    }

    static long number(DbRow row, String column) {
        return row.column(column).get(Number.class).longValue();
    }

    static byte[] bytes(DbRow row, String column) {
        return (byte[]) row.column(column).get();
    }

    static byte[] bytesOrNull(DbRow row, String column) {
        return (byte[]) row.column(column).asOptional().orElse(null);
    }

    /** Hashes as a {@code bytea[]} parameter. */
    static byte[][] raw(Collection<MerkleHash> hashes) {
        byte[][] out = new byte[hashes.size()][];
        int i = 0;
        for (MerkleHash h : hashes) out[i++] = h.toBytes();
        return out;
    }
}
