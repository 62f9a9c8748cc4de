package org.openxet.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openxet.service.ServerConfig;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What deploy/ ships is what an operator installs: a unit systemd accepts without a warning, a config openxet loads. */
class DeployFilesTest {
    private static final Path DEPLOY = Path.of("..", "deploy").toAbsolutePath().normalize();

    /**
     * {@code systemd-analyze verify} (./run-tests installs Debian's systemd package for it) on the unit, its
     * ExecStart pointed at this checkout's launcher, which verify requires to exist. It exits 0 on keys it cannot
     * parse, so any word it prints fails the test too.
     */
    @Test
    void theSystemdUnitVerifiesWithoutAWarning(@TempDir Path dir) throws Exception {
        Path launcher = DEPLOY.resolveSibling("openxet");
        String unit = Files.readString(DEPLOY.resolve("openxet.service"))
                .replace("/opt/openxet/openxet", launcher.toString());
        assertTrue(unit.contains("ExecStart=" + launcher + " serve"), "ExecStart names the launcher");
        Path copy = dir.resolve("openxet.service");
        Files.writeString(copy, unit);
        Process verify = new ProcessBuilder("systemd-analyze", "verify", copy.toString()).redirectErrorStream(true).start();
        String output = new String(verify.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(verify.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, verify.exitValue(), output);
        assertEquals("", output.strip(), "systemd-analyze verify must print nothing");
        assertTrue(unit.contains("\nRestart=on-failure\n") && unit.contains("\nNoNewPrivileges=yes\n")
                && unit.contains("\nProtectSystem=strict\n") && unit.contains("\nReadWritePaths=/var/lib/openxet\n")
                && unit.contains("\nLimitNOFILE="), "restart policy, hardening and limits");
    }

    @Test
    void theExampleConfigLoads() {
        ServerConfig c = ServerConfig.load(DEPLOY.resolve("openxet.yaml"));
        assertEquals(8080, c.port());
        assertEquals("https://cas.example.org", c.publicUrl());
        assertEquals(1024, c.connections().addressConnections());
        assertEquals(Duration.ofSeconds(30), c.connections().shutdownGrace());
        assertEquals("", c.storage().indexUrl(), "shared storage is commented out");
    }
}
