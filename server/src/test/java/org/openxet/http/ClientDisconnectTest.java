package org.openxet.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openxet.service.Access;
import org.openxet.testing.LogCapture;
import org.openxet.testing.TestServer;
import org.openxet.testing.Vectors;

import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A client that goes away mid-body is not a server fault: no 500, no WARNING with a stack, the server carries on. */
class ClientDisconnectTest {
    static TestServer server;
    static String write;

    @BeforeAll
    static void start() throws Exception {
        server = new TestServer();
        write = server.writeToken();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static void sendPartAndClose(String path, String token, int declared, byte[] part) throws Exception {
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            OutputStream out = s.getOutputStream();
            out.write(("POST " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token + "\r\nContent-Length: "
                    + declared + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(part);
            out.flush();
            Thread.sleep(200);
            // An abrupt close (RST), as a killed client or a dropped proxy connection does.
            s.setSoLinger(true, 0);
        }
    }

    @Test
    void aClientClosingMidBodyIsLoggedQuietly() throws Exception {
        JsonNode x = Vectors.capture("single-r65536").get("xorbs").get(0);
        byte[] body = Vectors.bytes(x.get("file").asText());
        try (LogCapture log = new LogCapture()) {
            sendPartAndClose("/v1/xorbs/default/" + x.get("xorb_hash").asText(), write, body.length,
                    java.util.Arrays.copyOf(body, 1000));
            sendPartAndClose("/v1/shards", write, 5000, new byte[100]);
            sendPartAndClose("/v1/telemetry", server.token("user/repo", Access.READ), 5000, new byte[100]);
            Thread.sleep(500); // let the server finish with them
            assertEquals(List.of(), log.warnings());
        }
        assertEquals(200, server.get("/health", null).statusCode());
    }
}
