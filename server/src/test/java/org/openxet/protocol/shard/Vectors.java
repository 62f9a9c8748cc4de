package org.openxet.protocol.shard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** The client-produced shards under testdata/vectors/scenarios (see testdata/vectors/README.md). */
final class Vectors {
    static final ObjectMapper JSON = new ObjectMapper();

    private Vectors() {
    }

    static Path dir() {
        String d = System.getProperty("openxet.vectors.dir");
        Path p = d != null ? Path.of(d) : Path.of("../testdata/vectors");
        if (!Files.isDirectory(p)) {
            throw new IllegalStateException("test vectors not found at " + p.toAbsolutePath());
        }
        return p;
    }

    /** Names of every scenario folder that holds a shard-0.bin. */
    static List<String> scenarios() {
        try (Stream<Path> s = Files.list(dir().resolve("scenarios"))) {
            return s.filter(p -> Files.exists(p.resolve("shard-0.bin")))
                    .map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] shard(String scenario) {
        return read(dir().resolve("scenarios").resolve(scenario).resolve("shard-0.bin"));
    }

    static JsonNode capture(String scenario) {
        try {
            return JSON.readTree(dir().resolve("scenarios").resolve(scenario).resolve("capture.json").toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static JsonNode index() {
        try {
            return JSON.readTree(dir().resolve("index.json").toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Shard parsed(String scenario) {
        try {
            return ShardParser.parse(shard(scenario));
        } catch (ShardFormatException e) {
            throw new AssertionError(scenario + " does not parse: " + e.getMessage(), e);
        }
    }

    private static byte[] read(Path p) {
        try {
            return Files.readAllBytes(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
