package org.openxet.service;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ServerConfigTest {
    @Test
    void yamlFileOverridesTheDefaults(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("openxet.yaml");
        Files.writeString(yaml, """
                openxet:
                  port: 9090
                  host: 127.0.0.1
                  data: /srv/openxet
                  public:
                    url: https://cas.example.org
                  upload:
                    floor: 1024
                    window: PT45S
                  urls:
                    ttl: PT2H
                  dedup:
                    isolate: true
                  commit:
                    permits: 3
                  answer:
                    writers: 1
                """);
        ServerConfig c = ServerConfig.load(yaml);
        assertEquals(9090, c.port());
        assertEquals("127.0.0.1", c.host());
        assertEquals(Path.of("/srv/openxet"), c.dataDir());
        assertEquals("https://cas.example.org", c.publicUrl());
        assertEquals(1024, c.uploadFloor());
        assertEquals(Duration.ofSeconds(45), c.uploadWindow());
        assertEquals(Duration.ofHours(2), c.urlTtl());
        assertEquals(true, c.dedupIsolated());
        assertEquals(3, c.commitPermits());
        assertEquals(1, c.answerWriters());
    }

    @Test
    void withoutAFileTheDefaultsHold() {
        ServerConfig c = ServerConfig.load(null);
        assertEquals(8080, c.port());
        assertEquals(4096, c.uploadFloor());
        assertEquals(Duration.ofHours(1), c.urlTtl());
        assertEquals(4 * Runtime.getRuntime().availableProcessors(), c.commitPermits());
        assertEquals(Runtime.getRuntime().availableProcessors(), c.answerWriters());
    }
}
