package org.openxet.http;

import io.helidon.webserver.WebServer;
import org.junit.jupiter.api.Test;
import org.openxet.service.ServerConfig;
import org.openxet.service.Services;

import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The listener holds at most its connection limit open: idle connections cannot use up the file descriptors. */
class ConnectionLimitTest {
    private static final byte[] HEALTH = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    @Test
    void theDefaultLimitLeavesDescriptorsForFiles() {
        int limit = OpenxetServer.connectionLimit();
        long fds = ((com.sun.management.UnixOperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getMaxFileDescriptorCount();
        assertTrue(limit >= 1 && limit <= OpenxetServer.MAX_CONNECTIONS && limit < fds, limit + " of " + fds);
    }

    @Test
    void connectionsPastTheLimitWaitUntilOneEnds() throws Exception {
        Path dir = Files.createTempDirectory("openxet-limit");
        // All three from one address: the per-address limit (a quarter of the cap by default) is lifted to the cap.
        Services services = Services.open(ServerConfig.defaults(dir).withHost("127.0.0.1").withPort(0)
                .withConnections(new ServerConfig.Connections(Duration.ofSeconds(10), Duration.ofSeconds(90), 3)));
        WebServer server = OpenxetServer.start(services, 3);
        List<Socket> idle = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                Socket s = new Socket("127.0.0.1", server.port());
                idle.add(s);
                assertTrue(health(s).startsWith("HTTP/1.1 200"));
            }
            try (Socket waiting = new Socket("127.0.0.1", server.port())) {
                // Connected by the kernel's backlog, but not accepted: no answer while three connections are open.
                waiting.setSoTimeout(700);
                assertThrows(SocketTimeoutException.class, () -> health(waiting));
                idle.removeFirst().close();
                waiting.setSoTimeout(10_000);
                assertTrue(UploadRejectionTest.readResponse(waiting.getInputStream()).startsWith("HTTP/1.1 200"));
            }
        } finally {
            for (Socket s : idle) {
                s.close();
            }
            server.stop();
            services.close();
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static String health(Socket s) throws Exception {
        s.getOutputStream().write(HEALTH);
        s.getOutputStream().flush();
        InputStream in = s.getInputStream();
        return UploadRejectionTest.readResponse(in);
    }
}
