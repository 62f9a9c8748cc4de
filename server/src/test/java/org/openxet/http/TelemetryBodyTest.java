package org.openxet.http;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openxet.service.Access;
import org.openxet.testing.TestServer;

import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code POST /v1/telemetry} is discarded: a declared length is never allocated up front. */
class TelemetryBodyTest {
    static TestServer server;
    static String read;

    @BeforeAll
    static void start() throws Exception {
        server = new TestServer();
        read = server.token("user/repo", Access.READ);
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getTotalThreadAllocatedBytes();
    }

    /**
     * Connections that each declare the 1 MiB cap and send one byte: the server used to allocate the declared MiB per
     * connection before reading (thousands of them exhausted a 6 GB heap); now each costs a small buffer.
     */
    @Test
    void stalledTelemetryBodiesDoNotAllocateTheirDeclaredLength() throws Exception {
        int connections = 64;
        List<Socket> sockets = new ArrayList<>();
        try {
            // Warm up first: the first requests load classes and compile code, tens of MB of unrelated allocation.
            for (int i = 0; i < 20; i++) {
                assertEquals(200, server.post("/v1/telemetry", read, "{}".getBytes(StandardCharsets.UTF_8)).statusCode());
            }
            long before = allocatedBytes();
            for (int i = 0; i < connections; i++) {
                Socket s = new Socket("127.0.0.1", server.port());
                sockets.add(s);
                OutputStream out = s.getOutputStream();
                out.write(("POST /v1/telemetry HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + read
                        + "\r\nContent-Length: " + MiscRoutes.TELEMETRY_CAP + "\r\n\r\n{").getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
            // The server still answers, and by now every stalled handler has started reading its body.
            assertEquals(200, server.post("/v1/telemetry", read, "{}".getBytes(StandardCharsets.UTF_8)).statusCode());
            Thread.sleep(500);
            long allocated = allocatedBytes() - before;
            assertTrue(allocated < connections * MiscRoutes.TELEMETRY_CAP / 4,
                    allocated + " bytes allocated for " + connections + " stalled telemetry bodies");
        } finally {
            for (Socket s : sockets) {
                s.close();
            }
        }
    }

    /**
     * Every body read schedules a stall check (upload.window / 4 apart, 5 s by default) and cancels it when the read
     * ends; a cancelled check leaves the queue at once instead of staying there, with its reader thread, until its
     * next run. The queue is shared by every server in this JVM, so the count is taken relative to before.
     */
    @Test
    void aFinishedBodyReadLeavesNoStallCheckQueued() throws Exception {
        int before = Bodies.pendingStallChecks();
        for (int i = 0; i < 100; i++) {
            assertEquals(200, server.post("/v1/telemetry", read, "{}".getBytes(StandardCharsets.UTF_8)).statusCode());
        }
        // Each answer follows its read, so none of these 100 is in progress.
        long deadline = System.nanoTime() + 2_000_000_000L;
        while (Bodies.pendingStallChecks() > before && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(Bodies.pendingStallChecks() <= before,
                Bodies.pendingStallChecks() + " stall checks queued, " + before + " before 100 finished reads");
    }

    @Test
    void bodiesOverTheCapAre413AndAtTheCapAre200() throws Exception {
        String over;
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(("POST /v1/telemetry HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + read
                    + "\r\nContent-Length: " + (MiscRoutes.TELEMETRY_CAP + 1) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            over = UploadRejectionTest.readResponse(s.getInputStream());
        }
        assertTrue(over.startsWith("HTTP/1.1 413"), over);
        assertTrue(over.contains("\"error\":\"payload_too_large\""), over);
        assertEquals(200, server.post("/v1/telemetry", read, new byte[(int) MiscRoutes.TELEMETRY_CAP]).statusCode());
    }
}
