package org.openxet.gates;

import io.helidon.webserver.WebServer;
import org.junit.jupiter.api.Test;
import org.openxet.http.OpenxetServer;
import org.openxet.protocol.ClientUploads.Xorb;
import org.openxet.service.Access;
import org.openxet.service.ServerConfig;
import org.openxet.service.Services;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The rig's writes, against a real server on loopback. */
class RigLoadTest {
    @Test
    void aSecondRunOnTheSameIndexUploadsNewFilesNotTheFirstRunsAgain() throws Exception {
        Path tmp = Files.createTempDirectory("openxet-rig-load-test");
        try (Services services = Services.open(ServerConfig.defaults(tmp).withHost("127.0.0.1").withPort(0))) {
            WebServer server = OpenxetServer.start(services);
            try {
                RigFixture fixture = new RigFixture(3000, 7, 1);
                String token = services.tokens().mint("rig/writes", Access.WRITE, Duration.ofHours(1));
                RigLoad.Workload mix = new RigLoad.Workload(1.0, 0.1, 0.05, 0.0, 0.001);
                // Two runs of the rig on one kept fixture: each its own load generator, each starting at write 1.
                RigLoad first = new RigLoad(fixture, server.port(), scope -> token, token, mix, 4);
                RigLoad second = new RigLoad(fixture, server.port(), scope -> token, token, mix, 4);
                assertTrue(first.write(1));
                assertTrue(second.write(1));

                Xorb a = first.newFile(1);
                Xorb b = second.newFile(1);
                assertNotEquals(a.hash(), b.hash());
                assertEquals(a.hash(), first.newFile(1).hash(), "a generator's w-th file is one file");
                assertTrue(services.index().hasXorb(a.hash()));
                assertTrue(services.index().hasXorb(b.hash()));
            } finally {
                server.stop();
            }
        } finally {
            Files2.deleteTree(tmp);
        }
    }
}
