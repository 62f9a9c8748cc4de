package org.openxet.gates;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A started server's port is read from the log it writes itself: found once its line is whole, and a process that
 * ends without one is reported with what it wrote.
 */
class ServerProcessTest {
    @Test
    void thePortIsReadFromTheLogTheProcessWritesOnceItsLineIsWhole(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("server.log");
        // The line arrives in two writes, the port's digits split across them, then the access log goes on.
        Process p = start(log, "printf 'starting\\nopenxet 0.1 listening on http://127.0.0.1:43'; sleep 0.3;"
                + " printf '21\\n  config: x\\n'; for i in 1 2 3; do echo GET /x 200; done; sleep 5");
        try {
            assertEquals(4321, ServerProcess.awaitPort(p, log));
            String rest = "GET /x 200\nGET /x 200\nGET /x 200\n";
            // The process writes on by itself; on a busy machine its next lines may take a moment.
            for (int i = 0; i < 100 && !Files.readString(log, StandardCharsets.UTF_8).contains(rest); i++) {
                Thread.sleep(50);
            }
            assertTrue(Files.readString(log, StandardCharsets.UTF_8).contains(rest));
        } finally {
            p.destroyForcibly().waitFor();
        }
    }

    @Test
    void aProcessThatEndsWithoutListeningIsReportedWithWhatItWrote(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("server.log");
        Process p = start(log, "echo 'openxet: the data dir is locked by another process' >&2; exit 3");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> ServerProcess.awaitPort(p, log));
        assertTrue(e.getMessage().contains("the data dir is locked by another process"), e.getMessage());
    }

    /** {@code script} under sh, its output to {@code log} as {@link ServerProcess#start} sends a server's. */
    private static Process start(Path log, String script) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(List.of("sh", "-c", script));
        return ServerProcess.startLogged(pb, log);
    }
}
