package org.openxet.service;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each setting is declared once, and the README's configuration table is exactly what the declarations say. */
class SettingsTest {
    @Test
    void theReadmeTableListsEverySettingAsDeclared() throws Exception {
        Path readme = Path.of(System.getProperty("user.dir")).resolveSibling("README.md");
        String rows = Files.readAllLines(readme).stream().filter(l -> l.startsWith("| `"))
                .collect(Collectors.joining("\n", "", "\n"));
        assertEquals(Settings.readmeTable(), rows, "README.md's configuration table differs from Settings");
    }

    @Test
    void keysAndVariablesAreUniqueAndEveryDefaultIsWhatAnEmptyConfigurationReads() {
        Set<String> keys = new HashSet<>();
        Set<String> envs = new HashSet<>();
        ServerConfig defaults = ServerConfig.defaults(Path.of("data"));
        for (Setting<?> s : Settings.ALL) {
            assertTrue(keys.add(s.key()), s.key());
            assertTrue(envs.add(s.env()), s.env());
            assertTrue(!s.defaultText().isEmpty() && !s.meaning().isEmpty(), s.key() + " is documented");
            assertEquals(s.fallback(), defaults.get(s), s.key());
        }
        assertEquals("OPENXET_AUTH_MAX_LIFETIME", Settings.AUTH_MAX_LIFETIME.env());
    }

    @Test
    void zeroMeansTheMachinesDefault() throws Exception {
        ServerConfig c = ServerConfigTest.loadYaml("openxet:\n  commit:\n    permits: 0\n  answer:\n    writers: 0\n");
        assertEquals(4 * Runtime.getRuntime().availableProcessors(), c.commitPermits());
        assertEquals(Runtime.getRuntime().availableProcessors(), c.answerWriters());
        assertEquals(3, c.with(Settings.COMMIT_PERMITS, 3).commitPermits());
    }
}
