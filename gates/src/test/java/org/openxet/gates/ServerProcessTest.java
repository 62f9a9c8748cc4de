package org.openxet.gates;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

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

    @Test
    void theRigsServerStartsFromTheLaunchersAotCacheWhenGatesRunPassesItsOptions(@TempDir Path dir) {
        Args rig = new Args("rig", false, Map.of());
        String before = System.getProperty(RestartGate.AOT_ARGS_PROPERTY);
        try {
            System.setProperty(RestartGate.AOT_ARGS_PROPERTY, " -XX:AOTCache=/c/openxet.aot  -Xlog:aot*=off ");
            List<String> cmd = ServerProcess.command(rig, dir, ServerProcess.launcherAot(rig));
            int cache = cmd.indexOf("-XX:AOTCache=/c/openxet.aot");
            assertTrue(cache > 0, cmd.toString());
            assertEquals("-Xlog:aot*=off", cmd.get(cache + 1));
            assertEquals(List.of("serve", "--host", "127.0.0.1", "--port", "0", "--data", dir.toString()),
                    cmd.subList(cmd.size() - 7, cmd.size()));
            int main = Math.max(cmd.indexOf("-cp"), cmd.indexOf("-jar"));
            assertTrue(main > cache + 1, "the JVM options go before the class path or jar: " + cmd);

            System.setProperty(RestartGate.AOT_ARGS_PROPERTY, "");
            assertTrue(ServerProcess.command(rig, dir, ServerProcess.launcherAot(rig)).stream()
                    .noneMatch(o -> o.contains("AOT")));
        } finally {
            if (before == null) System.clearProperty(RestartGate.AOT_ARGS_PROPERTY);
            else System.setProperty(RestartGate.AOT_ARGS_PROPERTY, before);
        }
    }

    @Test
    void anotherServerJarStartsWithoutTheLaunchersAotCacheWhoseClassesTheJvmWouldRunInstead(@TempDir Path dir) {
        String aotBefore = System.getProperty(RestartGate.AOT_ARGS_PROPERTY);
        String jarBefore = System.getProperty("openxet.server.jar");
        try {
            System.setProperty(RestartGate.AOT_ARGS_PROPERTY, "-XX:AOTCache=/c/openxet.aot -Xlog:aot*=off");
            System.setProperty("openxet.server.jar", dir.resolve("server/target/openxet.jar").toString());
            Args other = new Args("rig", false, Map.of("server-jar", dir.resolve("openxet-old.jar").toString()));
            assertEquals(List.of(), ServerProcess.launcherAot(other));
            assertTrue(ServerProcess.command(other, dir, ServerProcess.launcherAot(other)).stream()
                    .noneMatch(o -> o.contains("AOTCache")));
            // The launcher's own jar, however named, keeps its cache.
            Args same = new Args("rig", false, Map.of("server-jar",
                    dir.resolve("server/../server/target/openxet.jar").toString()));
            assertEquals(List.of("-XX:AOTCache=/c/openxet.aot", "-Xlog:aot*=off"), ServerProcess.launcherAot(same));
            assertTrue(ServerProcess.launcherAot(new Args("rig", false, Map.of())).contains("-XX:AOTCache=/c/openxet.aot"));
        } finally {
            restore(RestartGate.AOT_ARGS_PROPERTY, aotBefore);
            restore("openxet.server.jar", jarBefore);
        }
    }

    private static void restore(String property, String value) {
        if (value == null) System.clearProperty(property);
        else System.setProperty(property, value);
    }

    /** {@code script} under sh, its output to {@code log} as {@link ServerProcess#start} sends a server's. */
    private static Process start(Path log, String script) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(List.of("sh", "-c", script));
        return ServerProcess.startLogged(pb, log);
    }
}
