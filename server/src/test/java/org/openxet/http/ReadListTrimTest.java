package org.openxet.http;

import io.helidon.common.buffers.DataReader;
import io.helidon.http.HeaderNames;
import io.helidon.http.Headers;
import io.helidon.http.HttpPrologue;
import io.helidon.http.Method;
import io.helidon.http.WritableHeaders;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.http1.Http1ConnectionListener;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ReadListTrim} finds Helidon's reader members, leaves every byte where it was, and leaves the reads behind a
 * request head with no path to the reads after it.
 */
class ReadListTrimTest {
    /** A connection's socket reads, one array each, in order; then the end of the stream. */
    private static Supplier<byte[]> reads(String... chunks) {
        ArrayDeque<byte[]> q = new ArrayDeque<>();
        for (String c : chunks) q.add(c.getBytes(StandardCharsets.US_ASCII));
        return q::poll;
    }

    private static String text(DataReader r, int n) {
        return new String(r.readBytes(n), StandardCharsets.US_ASCII);
    }

    @Test
    void helidonsReaderHasTheMembersTheTrimNeeds() {
        assertTrue(ReadListTrim.available());
    }

    @Test
    void aTrimmedReaderReadsTheSameBytesWhereverItIsCut() {
        List<String> chunks = List.of("GET /a HTTP/1.1\r\n", "Host: x\r\n\r\nbo", "dy-one", "-and-two");
        // Cut with the head half read, with further reads already pulled behind it, and with the head used up.
        DataReader r = DataReader.create(reads(chunks.toArray(String[]::new)));
        assertEquals("GET /a", text(r, 6));
        ReadListTrim.trim(r);
        assertEquals(" HTTP/1.1\r\nHost", text(r, 15));
        ReadListTrim.trim(r);
        r.getBuffer(10); // pulls the third read in behind the head without moving
        ReadListTrim.trim(r);
        assertEquals(": x\r\n\r\nbody-", text(r, 12));
        assertEquals("one", text(r, 3));
        ReadListTrim.trim(r);
        assertEquals("-and-two", text(r, 8));
        assertEquals(0, r.available());
    }

    @Test
    void readsBehindARequestHeadReachNothingReadAfterIt() {
        String[] connection = {"GET /1 HTTP/1.1\r\n\r\n", "PUT /2 HTTP/1.1\r\n\r\n", "body", "body", "body"};
        for (boolean trimmed : new boolean[]{false, true}) {
            DataReader r = DataReader.create(reads(connection));
            assertEquals("GET /1 HTTP/1.1\r\n\r\n", text(r, 19));
            // What a kept-alive connection holds while it waits: the last read of its previous request.
            Object waiting = ReadListTrim.head(r);
            assertEquals("PUT /2 HTTP/1.1\r\n\r\n", text(r, 19));
            if (trimmed) ReadListTrim.trim(r);
            assertEquals("bodybodybody", text(r, 12));
            Object last = ReadListTrim.head(r);
            assertNotSame(waiting, last);
            boolean reached = false;
            for (Object n = waiting; n != null; n = ReadListTrim.next(n)) {
                reached |= n == last;
            }
            // Untrimmed, the waiting read links to every read after it, the body's too: the chain G1 kept promoting.
            if (trimmed) {
                assertFalse(reached, "the body's reads are reachable from the previous request's read");
            } else {
                assertTrue(reached, "control: Helidon's reader no longer links consumed reads; this trim may go");
            }
        }
    }

    @Test
    void theServersOneReceiveListenerGivesEachHeadToEveryListenerInOrder() {
        List<String> seen = new ArrayList<>();
        class Recording implements Http1ConnectionListener {
            private final String name;

            Recording(String name) {
                this.name = name;
            }

            @Override
            public void prologue(ConnectionContext ctx, HttpPrologue prologue) {
                seen.add(name + " " + prologue.method().text());
            }

            @Override
            public void headers(ConnectionContext ctx, Headers headers) {
                seen.add(name + " " + headers.size() + " header");
            }
        }
        Http1ConnectionListener one = OpenxetServer.receiving(new Recording("guard"), new Recording("trim"));
        WritableHeaders<?> headers = WritableHeaders.create();
        headers.add(HeaderNames.HOST, "x");
        one.prologue(null, HttpPrologue.create("HTTP/1.1", "HTTP", "1.1", Method.PUT, "/2", false));
        one.headers(null, headers);
        assertEquals(List.of("guard PUT", "trim PUT", "guard 1 header", "trim 1 header"), seen);
    }
}
