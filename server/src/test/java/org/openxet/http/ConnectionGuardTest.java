package org.openxet.http;

import io.helidon.webserver.WebServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openxet.service.Access;
import org.openxet.service.ServerConfig;
import org.openxet.service.Services;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Clients without a token cannot hold the server's connections: silent and trickling request heads are closed after
 * the header timeout, idle kept-alive connections after the idle timeout, and one client address holds at most its
 * share, while /health keeps answering at once.
 */
class ConnectionGuardTest {
    static final Duration HEADER_TIMEOUT = Duration.ofSeconds(1);
    static final Duration IDLE_TIMEOUT = Duration.ofSeconds(2);
    static final int CAP = 16;
    static final int PER_ADDRESS = 4;
    static Services services;
    static WebServer server;

    @BeforeAll
    static void start() throws Exception {
        Path dir = Files.createTempDirectory("openxet-guard");
        services = Services.open(ServerConfig.defaults(dir).withHost("127.0.0.1").withPort(0)
                .withConnections(new ServerConfig.Connections(HEADER_TIMEOUT, IDLE_TIMEOUT, PER_ADDRESS)));
        server = OpenxetServer.start(services, CAP);
    }

    @AfterAll
    static void stop() {
        server.stop();
        services.close();
    }

    /** A socket from {@code localAddress} (any of 127.0.0.0/8 on Linux), as a distinct client host would be. */
    private static Socket from(String localAddress) throws IOException {
        Socket s = new Socket();
        s.bind(new InetSocketAddress(InetAddress.getByName(localAddress), 0));
        s.connect(new InetSocketAddress("127.0.0.1", server.port()));
        return s;
    }

    /** Milliseconds until the server ends the connection (EOF or reset), reading and dropping what it sends. */
    private static long millisUntilClosed(Socket s, long startNanos) throws IOException {
        s.setSoTimeout(15_000);
        InputStream in = s.getInputStream();
        try {
            while (in.read() >= 0) {
                // an answer (a 4xx for a broken head) is allowed; the end is what counts
            }
        } catch (SocketTimeoutException e) {
            return Long.MAX_VALUE;
        } catch (IOException reset) {
            // closed
        }
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    private static String health(Socket s) throws Exception {
        s.setSoTimeout(1_000);
        s.getOutputStream().write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        return UploadRejectionTest.readResponse(s.getInputStream());
    }

    @Test
    void silentAndTricklingRequestHeadsAreClosedAfterTheHeaderTimeout() throws Exception {
        long start = System.nanoTime();
        try (Socket silent = from("127.0.0.11"); Socket partialLine = from("127.0.0.11");
             Socket headersStuck = from("127.0.0.11"); Socket trickle = from("127.0.0.11")) {
            partialLine.getOutputStream().write("GET /hea".getBytes(StandardCharsets.US_ASCII));
            headersStuck.getOutputStream().write("GET /health HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
            OutputStream t = trickle.getOutputStream();
            t.write("GET /health HTTP/1.1\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII));
            Thread dripping = Thread.ofVirtual().start(() -> {
                try {
                    for (int i = 0; i < 100; i++) {
                        t.write('a');
                        t.flush();
                        Thread.sleep(100);
                    }
                } catch (Exception closed) {
                    // the server closed it
                }
            });
            long limit = HEADER_TIMEOUT.toMillis() + 1500;
            for (Socket s : List.of(silent, partialLine, headersStuck, trickle)) {
                long closedAfter = millisUntilClosed(s, start);
                assertTrue(closedAfter >= HEADER_TIMEOUT.toMillis() - 100 && closedAfter < limit,
                        "closed after " + closedAfter + " ms");
            }
            dripping.interrupt();
        }
    }

    @Test
    void anIdleKeptAliveConnectionIsClosedAfterTheIdleTimeout() throws Exception {
        try (Socket s = from("127.0.0.12")) {
            assertTrue(health(s).startsWith("HTTP/1.1 200"));
            long start = System.nanoTime();
            long closedAfter = millisUntilClosed(s, start);
            assertTrue(closedAfter >= IDLE_TIMEOUT.toMillis() - 1100 && closedAfter < IDLE_TIMEOUT.toMillis() + 2500,
                    "closed after " + closedAfter + " ms");
        }
    }

    @Test
    void oneAddressHoldsAtMostItsShareAndHealthStillAnswersAtOnce() throws Exception {
        List<Socket> held = new ArrayList<>();
        try {
            for (int i = 0; i < PER_ADDRESS; i++) {
                held.add(from("127.0.0.13"));
            }
            // The guard counts a connection once Helidon has accepted it; the silent ones live a header timeout.
            Thread.sleep(200);
            try (Socket over = from("127.0.0.13")) {
                long start = System.nanoTime();
                long closedAfter = millisUntilClosed(over, start);
                assertTrue(closedAfter < 500, "the connection over the share closed after " + closedAfter + " ms");
            }
            for (int i = 0; i < 3; i++) {
                try (Socket other = from("127.0.0.14")) {
                    long start = System.nanoTime();
                    assertTrue(health(other).startsWith("HTTP/1.1 200"));
                    assertTrue((System.nanoTime() - start) / 1_000_000 < 1000);
                }
            }
        } finally {
            for (Socket s : held) s.close();
        }
    }

    @Test
    void aSlowButSteadyBodyIsNotCutByTheHeadDeadline() throws Exception {
        String token = services.tokens().mint("user/repo", Access.READ, Duration.ofMinutes(5));
        try (Socket s = from("127.0.0.15")) {
            OutputStream out = s.getOutputStream();
            out.write(("POST /v1/telemetry HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token
                    + "\r\nContent-Length: 30\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            // 30 bytes over 3 s: three header timeouts, well inside the upload window.
            for (int i = 0; i < 30; i++) {
                out.write('x');
                out.flush();
                Thread.sleep(100);
            }
            s.setSoTimeout(5_000);
            assertEquals("HTTP/1.1 200", UploadRejectionTest.readResponse(s.getInputStream()).substring(0, 12));
        }
    }
}
