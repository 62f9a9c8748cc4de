package org.openxet.http;

import io.helidon.webserver.WebServer;
import org.junit.jupiter.api.Test;
import org.openxet.storage.BucketException;
import org.openxet.storage.IndexException;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which failures of the stores are an outage (503, retry later) and which stay a 500 or a 507; and what a failure after
 * an answer has begun does to its connection.
 */
class ErrorsTest {
    @Test
    void storeOutagesAre503AndOtherDatabaseErrorsStay500() {
        assertEquals(new Errors.Mapped(503, "storage_unavailable", "the server's object store is unavailable; retry later"),
                Errors.map(new UncheckedIOException(new BucketException("get x failed", new ConnectException("refused")))));
        // The pool's wait for a connection ran out because it could not open one (its cause): an outage.
        assertEquals(new Errors.Mapped(503, "storage_unavailable", "the server's index is unavailable; retry later"),
                Errors.map(index(new SQLTransientConnectionException("pool timed out", "08001",
                        new SQLException("Connection refused", "08001")))));
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

    @Test
    void aFailureAfterTheFirstBytesEndsTheConnection() throws Exception {
        // A handler that fails once its answer has begun (a store failing mid-range, a writer failing mid-answer) cannot
        // answer the error any more: the client must see the body cut short, not wait for bytes that will not come.
        // (Errors.send finds the stream begun and its error body refused; Helidon then ends the connection. A handler
        // that returned normally with a short body would leave the client waiting: ChannelBodyStream guards that.)
        WebServer server = WebServer.builder().host("127.0.0.1").port(0).shutdownHook(false).useNio(false)
                .routing(r -> r.get("/cut", (req, res) -> {
                    try {
                        res.contentLength(1000);
                        OutputStream out = res.outputStream();
                        out.write(new byte[500]);
                        out.flush();
                        throw new IllegalStateException("the store failed mid-body");
                    } catch (Throwable t) {
                        Errors.send(req, res, t);
                    }
                }))
                .build().start();
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write("GET /cut HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            String head = "";
            while (!head.endsWith("\r\n\r\n")) {
                int c = in.read();
                assertTrue(c >= 0, "closed in the headers: " + head);
                head += (char) c;
            }
            assertTrue(head.startsWith("HTTP/1.1 200"), head);
            assertEquals(500, in.readNBytes(1000).length);
        } finally {
            server.stop();
        }
    }

    private static IndexException index(SQLException cause) {
        return new IndexException("index read failed", cause);
    }
}
