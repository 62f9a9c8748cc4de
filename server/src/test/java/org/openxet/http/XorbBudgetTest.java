package org.openxet.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.helidon.webserver.WebServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openxet.testing.TestServer;
import org.openxet.testing.Vectors;

import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** An upload that cannot get its share of the xorb memory budget in time is answered 503, not left waiting. */
class XorbBudgetTest {
    static final long BUDGET = 256 << 10;
    static TestServer base;
    static WebServer server;
    static String write;

    @BeforeAll
    static void start() throws Exception {
        base = new TestServer();
        write = base.writeToken();
        // The real routes over the same services, with a 256 KiB budget and a half-second wait.
        server = WebServer.builder().host("127.0.0.1").port(0).routing(r -> {
            ServerMetrics metrics = ServerMetrics.create(false);
            RouteTable routes = new RouteTable(r, base.services().tokens(), metrics);
            Bodies bodies = new Bodies(base.services().config().uploadFloor(), base.services().config().uploadWindow());
            new XorbRoutes(base.services(), bodies, metrics, BUDGET, Duration.ofMillis(500)).register(routes);
            routes.fallback();
        }).build().start();
    }

    @AfterAll
    static void stop() throws Exception {
        server.stop();
        base.close();
    }

    @Test
    void anUploadWaitingTooLongForTheBudgetIs503WithRetryAfter() throws Exception {
        JsonNode x = Vectors.capture("single-r65536").get("xorbs").get(0);
        String hash = x.get("xorb_hash").asText();
        byte[] body = Vectors.bytes(x.get("file").asText());
        String head = "POST /v1/xorbs/default/" + hash + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + write + "\r\n";
        try (Socket holder = new Socket("127.0.0.1", server.port())) {
            // A slow upload declaring the whole budget: it holds it while its bytes trickle in.
            OutputStream out = holder.getOutputStream();
            out.write((head + "Content-Length: " + BUDGET + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body, 0, 100);
            out.flush();
            Thread.sleep(300);

            long start = System.nanoTime();
            String refused = post(head, body);
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(refused.startsWith("HTTP/1.1 503"), refused);
            assertTrue(refused.contains("\r\nRetry-After: " + Errors.BUSY_RETRY_AFTER_SECONDS + "\r\n"), refused);
            assertTrue(refused.contains("{\"error\":\"busy\",\"message\":"), refused);
            assertTrue(millis < 5000, millis + " ms");
        }
        // The holder is gone and its share returned: the same upload now goes through.
        String accepted = post(head, body);
        assertTrue(accepted.startsWith("HTTP/1.1 200"), accepted);
    }

    private static String post(String head, byte[] body) throws Exception {
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            // Without a bounded wait no answer ever comes: fail after 10 s instead of hanging.
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write((head + "Content-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            try {
                out.write(body);
                out.flush();
            } catch (java.io.IOException answeredAndClosed) {
                // the 503 came before the body and the server closed: read what it said
            }
            return UploadRejectionTest.readResponse(s.getInputStream());
        }
    }
}
