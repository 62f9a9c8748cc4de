package org.openxet.protocol.shard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.nio.file.Files;
import java.util.List;

/** The client-produced shards under testdata/vectors/scenarios, on top of the shared {@link org.openxet.testing.Vectors}. */
final class Vectors {
    static final ObjectMapper JSON = new ObjectMapper();

    private Vectors() {
    }

    /** Names of every scenario folder that holds a shard-0.bin. */
    static List<String> scenarios() {
        return org.openxet.testing.Vectors.scenarioNames().stream()
                .filter(s -> Files.exists(org.openxet.testing.Vectors.dir().resolve("scenarios/" + s + "/shard-0.bin")))
                .sorted().toList();
    }

    static byte[] shard(String scenario) {
        return org.openxet.testing.Vectors.bytes("scenarios/" + scenario + "/shard-0.bin");
    }

    static JsonNode capture(String scenario) {
        return org.openxet.testing.Vectors.capture(scenario);
    }

    static JsonNode index() {
        return org.openxet.testing.Vectors.index();
    }

    static Shard parsed(String scenario) {
        try {
            return ShardParser.parse(shard(scenario));
        } catch (ShardFormatException e) {
            throw new AssertionError(scenario + " does not parse: " + e.getMessage(), e);
        }
    }
}
