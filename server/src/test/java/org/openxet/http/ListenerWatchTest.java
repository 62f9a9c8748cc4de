package org.openxet.http;

import io.helidon.webserver.WebServer;
import org.junit.jupiter.api.Test;
import org.openxet.service.ServerConfig;
import org.openxet.service.Services;

import java.net.ConnectException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A listener that stops while the server runs is noticed (serve then exits); a healthy or stopped one is not. */
class ListenerWatchTest {
    private static final Duration EVERY = Duration.ofMillis(200);

    private static Set<Thread> listenerThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("server-@default-listener")).collect(Collectors.toSet());
    }

    @Test
    void aListenerThatDiesWhileTheServerRunsIsNoticed() throws Exception {
        Path dir = Files.createTempDirectory("openxet-watch");
        Services services = Services.open(ServerConfig.defaults(dir).withHost("0.0.0.0").withPort(0));
        Set<Thread> before = listenerThreads();
        WebServer server = OpenxetServer.start(services, 8);
        try {
            Set<Thread> ours = listenerThreads();
            ours.removeAll(before);
            assertEquals(1, ours.size(), ours.toString());
            CountDownLatch noticed = new CountDownLatch(1);
            OpenxetServer.watchListener(server, "0.0.0.0", EVERY, () -> false, noticed::countDown);
            assertFalse(noticed.await(1, TimeUnit.SECONDS), "a healthy listener is left alone");

            // Any failure of the accept loop ends the same way (a failed accept() for want of a descriptor in
            // production): Helidon closes the listening socket, and its thread then waits forever on itself.
            ours.iterator().next().interrupt();
            assertTrue(noticed.await(10, TimeUnit.SECONDS), "the stopped listener was not noticed");
            assertTrue(server.isRunning(), "Helidon still reports the server running: why the watch is needed");
            assertThrows(ConnectException.class, () -> new Socket("127.0.0.1", server.port()).close());
        } finally {
            server.stop();
            services.close();
            delete(dir);
        }
    }

    @Test
    void aServerStoppedOnPurposeIsNotAFailure() throws Exception {
        Path dir = Files.createTempDirectory("openxet-watch");
        Services services = Services.open(ServerConfig.defaults(dir).withHost("127.0.0.1").withPort(0));
        WebServer server = OpenxetServer.start(services, 8);
        CountDownLatch noticed = new CountDownLatch(1);
        Thread watch = OpenxetServer.watchListener(server, "127.0.0.1", EVERY, () -> false, noticed::countDown);
        server.stop();
        services.close();
        delete(dir);
        watch.join(5000);
        assertFalse(watch.isAlive(), "the watch ends with the server");
        assertEquals(1, noticed.getCount());
    }

    private static void delete(Path dir) throws Exception {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
