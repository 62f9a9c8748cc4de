package org.openxet.http;

import org.junit.jupiter.api.Test;
import org.openxet.storage.BucketException;
import org.openxet.storage.IndexException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Which failures of the stores are an outage (503, retry later) and which stay a 500 or a 507. */
class ErrorsTest {
    @Test
    void storeOutagesAre503AndOtherDatabaseErrorsStay500() {
        assertEquals(new Errors.Mapped(503, "storage_unavailable", "the server's object store is unavailable; retry later"),
                Errors.map(new UncheckedIOException(new BucketException("get x failed", new ConnectException("refused")))));
        assertEquals(503, Errors.map(index(new SQLTransientConnectionException("pool timed out"))).status());
        assertEquals(503, Errors.map(index(new SQLNonTransientConnectionException("closed"))).status());
        // SQL states: 08006 connection failure, 57P01 admin shutdown, 57P03 cannot connect now.
        for (String state : new String[]{"08001", "08006", "57P01", "57P03"}) {
            Errors.Mapped m = Errors.map(index(new SQLException("down", state)));
            assertEquals(new Errors.Mapped(503, "storage_unavailable", "the server's index is unavailable; retry later"), m,
                    state);
        }
        // A constraint violation or a syntax error is a bug of ours, not an outage; a full disk is a 507.
        assertEquals(500, Errors.map(index(new SQLException("duplicate key", "23505"))).status());
        assertEquals(500, Errors.map(index(new SQLException("syntax", "42601"))).status());
        assertEquals(500, Errors.map(index(new SQLException("no state"))).status());
        assertEquals(507, Errors.map(new BucketException("put failed", new IOException("No space left on device")))
                .status());
    }

    private static IndexException index(SQLException cause) {
        return new IndexException("index read failed", cause);
    }
}
