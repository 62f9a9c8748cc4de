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
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Upload bodies take their memory from one budget as their bytes arrive: a client declaring a large body and trickling
 * holds what it sent, not what it declared; an upload that cannot grow within the wait is answered 503, not left
 * waiting.
 */
class UploadBudgetTest {
    static final long BUDGET = 4 << 20;
    /** Under pressure, a body slower than 64 KiB/s over a window yields its memory (the server here: none is judged). */
    static final long SLOW = 64 << 10;
    static final Duration SLOW_WINDOW = Duration.ofMinutes(10);
    static TestServer base;
    static WebServer server;
    static String write;
    static BodyBudget budget;

    @BeforeAll
    static void start() throws Exception {
        base = new TestServer();
        write = base.writeToken();
        // The real routes over the same services, with a 4 MiB budget and a half-second wait.
        budget = new BodyBudget(BUDGET, Duration.ofMillis(500), SLOW, SLOW_WINDOW);
        server = uploadRoutesOver(budget);
    }

    /** The real xorb and shard routes over the base server's services, drawing on {@code budget}. */
    static WebServer uploadRoutesOver(BodyBudget budget) {
        return WebServer.builder().host("127.0.0.1").port(0).routing(r -> {
            ServerMetrics metrics = ServerMetrics.create(false);
            RouteTable routes = new RouteTable(r, base.services().tokens(), base.services().users(), metrics);
            Bodies bodies = new Bodies(base.services().config().uploadFloor(), base.services().config().uploadWindow());
            new XorbRoutes(base.services(), bodies, budget, metrics).register(routes);
            new ShardRoutes(base.services(), bodies, budget, metrics).register(routes);
            routes.fallback();
        }).build().start();
    }

    /** A connection that declared a xorb body of {@link Bodies#FIRST_BUFFER} bytes and has sent {@code sent} of them. */
    static Socket holder(WebServer on, int sent) throws Exception {
        Socket holder = new Socket("127.0.0.1", on.port());
        OutputStream out = holder.getOutputStream();
        out.write((HEAD + write + "\r\nContent-Length: " + Bodies.FIRST_BUFFER + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.write(new byte[sent]);
        out.flush();
        return holder;
    }

    @AfterAll
    static void stop() throws Exception {
        server.stop();
        base.close();
    }

    private static final JsonNode X = Vectors.capture("single-r65536").get("xorbs").get(0);
    private static final String HEAD = "POST /v1/xorbs/default/" + X.get("xorb_hash").asText()
            + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ";

    @Test
    void aSlowUploadDeclaringTheWholeBudgetHoldsOnlyWhatItSent() throws Exception {
        byte[] body = Vectors.bytes(X.get("file").asText());
        try (Socket holder = new Socket("127.0.0.1", server.port())) {
            OutputStream out = holder.getOutputStream();
            out.write((HEAD + write + "\r\nContent-Length: " + BUDGET + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body, 0, 100);
            out.flush();
            Thread.sleep(300);
            assertTrue(budget.freeBytes() >= BUDGET - Bodies.FIRST_BUFFER, budget.freeBytes() + " bytes free");
            String accepted = post(HEAD + write + "\r\n", body);
            // Had the holder taken what it declared, this would be a 503 after the wait (it is not slow for 10 minutes).
            assertTrue(accepted.startsWith("HTTP/1.1 200"), accepted);
        }
        awaitFree(BUDGET);
    }

    @Test
    void anUploadThatCannotGrowWithinTheWaitIs503WithRetryAfter() throws Exception {
        byte[] body = Vectors.bytes(X.get("file").asText());
        List<Socket> holders = new ArrayList<>();
        try {
            // Sixteen senders of 256 KiB bodies that have each sent 100 bytes: their first buffers are the budget.
            for (int i = 0; i < BUDGET / Bodies.FIRST_BUFFER; i++) {
                holders.add(holder(server, 100));
            }
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (budget.freeBytes() > 0 && System.nanoTime() < deadline) Thread.sleep(20);
            assertEquals(0, budget.freeBytes());

            long start = System.nanoTime();
            String refused = post(HEAD + write + "\r\n", body);
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(refused.startsWith("HTTP/1.1 503"), refused);
            assertTrue(refused.contains("\r\nRetry-After: " + Errors.BUSY_RETRY_AFTER_SECONDS + "\r\n"), refused);
            assertTrue(refused.contains("{\"error\":\"busy\",\"message\":"), refused);
            assertTrue(millis >= 450 && millis < 5000, millis + " ms");
            // A shard upload draws on the same budget.
            String shard = post("POST /v1/shards HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + write + "\r\n",
                    Vectors.bytes(Vectors.capture("single-r65536").get("shards").get(0).get("file").asText()));
            assertTrue(shard.startsWith("HTTP/1.1 503"), shard);
        } finally {
            for (Socket holder : holders) holder.close();
        }
        // The holder is gone and its share returned: the same upload now goes through.
        awaitFree(BUDGET);
        String accepted = post(HEAD + write + "\r\n", body);
        assertTrue(accepted.startsWith("HTTP/1.1 200"), accepted);
        awaitFree(BUDGET);
    }

    @Test
    void slowHoldersYieldTheirMemoryToAnUploadThatArrives() throws Exception {
        // A budget of its own: 4 MiB, bodies judged over one second.
        BodyBudget tight = new BodyBudget(BUDGET, Duration.ofSeconds(3), SLOW, Duration.ofSeconds(1));
        WebServer own = uploadRoutesOver(tight);
        List<Socket> holders = new ArrayList<>();
        List<Thread> trickles = new ArrayList<>();
        try {
            // Sixteen senders that sent 250 KiB at once, filling the budget with their buffers, then trickle 1 KB/s.
            for (int i = 0; i < BUDGET / Bodies.FIRST_BUFFER; i++) {
                Socket holder = holder(own, 250 << 10);
                holders.add(holder);
                OutputStream out = holder.getOutputStream();
                trickles.add(Thread.ofVirtual().start(() -> {
                    try {
                        for (int k = 0; k < 20; k++) {
                            Thread.sleep(1000);
                            out.write(new byte[1000]);
                            out.flush();
                        }
                    } catch (Exception cut) {
                        // the server closed it
                    }
                }));
            }
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (tight.freeBytes() > 0 && System.nanoTime() < deadline) Thread.sleep(20);
            assertEquals(0, tight.freeBytes());
            Thread.sleep(2500); // two windows: their recent pace is now 1 KB/s
            byte[] body = Vectors.bytes(X.get("file").asText());
            try (Socket s = new Socket("127.0.0.1", own.port())) {
                s.setSoTimeout(10_000);
                OutputStream out = s.getOutputStream();
                out.write((HEAD + write + "\r\nContent-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(body);
                out.flush();
                String answer = UploadRejectionTest.readResponse(s.getInputStream());
                assertTrue(answer.startsWith("HTTP/1.1 200"), answer);
            }
            int closed = 0;
            for (Socket holder : holders) {
                holder.setSoTimeout(200);
                try {
                    if (holder.getInputStream().read() < 0) closed++;
                } catch (java.net.SocketTimeoutException open) {
                    // still being read
                } catch (java.io.IOException reset) {
                    closed++;
                }
            }
            assertTrue(closed >= 1, "a slow holder gave its memory up");
        } finally {
            trickles.forEach(Thread::interrupt);
            for (Socket holder : holders) holder.close();
            own.stop();
        }
    }

    private static void awaitFree(long bytes) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (budget.freeBytes() < bytes && System.nanoTime() < deadline) Thread.sleep(20);
        assertEquals(bytes, budget.freeBytes(), "every lease returned");
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
