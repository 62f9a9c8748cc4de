package org.openxet.http;

import org.junit.jupiter.api.Test;
import org.openxet.service.Access;
import org.openxet.service.Secrets;
import org.openxet.service.Tokens;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A real {@code openxet serve} process sent SIGTERM in the middle of an upload: it stops accepting connections at once,
 * lets the upload finish and acknowledges it, stops cleanly and exits 0; the acknowledged xorb is there after a
 * restart.
 */
class DrainTest {
    @Test
    void sigtermLetsAnUploadInFlightFinishThenExitsZero() throws Exception {
        Path data = Files.createTempDirectory("openxet-drain");
        Path log = data.resolveSibling(data.getFileName() + ".log");
        DurabilityTest.Xorb xorb = DurabilityTest.xorbs(1).getFirst();
        Process server = DurabilityTest.start(data, log);
        int port = DurabilityTest.awaitPort(server, log);
        String token = new Tokens(Secrets.loadOrCreate(data).tokenKey()).mint("user/repo", Access.WRITE, Duration.ofHours(1));
        String path = "/v1/xorbs/default/" + xorb.hash().hex();
        try (Socket upload = new Socket("127.0.0.1", port)) {
            OutputStream out = upload.getOutputStream();
            out.write(("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token
                    + "\r\nContent-Length: " + xorb.body().length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            int half = xorb.body().length / 2;
            out.write(xorb.body(), 0, half);
            out.flush();
            Thread.sleep(300); // the server is reading the body
            server.destroy(); // SIGTERM
            // New connections are refused once the listener has stopped, while the upload is still open.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            boolean refused = false;
            while (!refused && System.nanoTime() < deadline) {
                try (Socket probe = new Socket()) {
                    probe.connect(new InetSocketAddress("127.0.0.1", port), 1000);
                    Thread.sleep(50);
                } catch (ConnectException e) {
                    refused = true;
                }
            }
            assertTrue(refused, "the listener must stop accepting after SIGTERM");
            assertTrue(server.isAlive(), "the server must wait for the upload in flight");
            out.write(xorb.body(), half, xorb.body().length - half);
            out.flush();
            String answer = readAnswer(upload.getInputStream());
            assertTrue(answer.startsWith("HTTP/1.1 200"), answer);
            assertTrue(answer.contains("\"was_inserted\":true"), answer);
        }
        assertTrue(server.waitFor(40, TimeUnit.SECONDS), "the server must exit once the upload is done");
        assertEquals(0, server.exitValue(), "a drained stop exits 0");
        assertTrue(!Files.exists(data.resolve("RUNNING")), "SIGTERM must end in a clean stop");

        Process again = DurabilityTest.start(data, log);
        try {
            int port2 = DurabilityTest.awaitPort(again, log);
            HttpResponse<Void> head = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + port2 + path)).header("Authorization", "Bearer " + token)
                    .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.discarding());
            assertEquals(200, head.statusCode(), "the acknowledged xorb is stored");
        } finally {
            again.destroy();
            assertTrue(again.waitFor(40, TimeUnit.SECONDS));
            assertEquals(0, again.exitValue());
        }
    }

    /** The status line, headers and a Content-Length body of one answer. */
    private static String readAnswer(InputStream in) throws Exception {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) break;
            head.append((char) b);
        }
        int length = 0;
        for (String line : head.toString().split("\r\n")) {
            if (line.toLowerCase().startsWith("content-length:")) length = Integer.parseInt(line.substring(15).trim());
        }
        byte[] body = in.readNBytes(length);
        return head + new String(body, StandardCharsets.UTF_8);
    }
}
