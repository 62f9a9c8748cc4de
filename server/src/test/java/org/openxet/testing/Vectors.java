package org.openxet.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Access to testdata/vectors: the JSON files, the captured bodies, and the input recipes of its README regenerated
 * byte for byte (splitmix64 is {@link SplittableRandom#nextLong()}).
 */
public final class Vectors {
    private static final ObjectMapper JSON = new ObjectMapper();

    private Vectors() {
    }

    public static Path dir() {
        String p = System.getProperty("openxet.vectors.dir");
        Path d = p != null ? Path.of(p) : Path.of("../testdata/vectors");
        if (!Files.isDirectory(d)) {
            throw new IllegalStateException("test vectors not found at " + d.toAbsolutePath());
        }
        return d;
    }

    public static JsonNode json(String relative) {
        try {
            return JSON.readTree(dir().resolve(relative).toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static byte[] bytes(String relative) {
        try {
            return Files.readAllBytes(dir().resolve(relative));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static JsonNode index() {
        return json("index.json");
    }

    public static List<String> inputNames() {
        List<String> names = new ArrayList<>();
        index().get("inputs").forEach(n -> names.add(n.get("name").asText()));
        return names;
    }

    public static List<String> scenarioNames() {
        List<String> names = new ArrayList<>();
        index().get("scenarios").forEach(n -> names.add(n.get("name").asText()));
        return names;
    }

    public static JsonNode input(String name) {
        return json("inputs/" + name + ".json");
    }

    public static JsonNode capture(String scenario) {
        return json("scenarios/" + scenario + "/capture.json");
    }

    /** The bytes of an input, regenerated from its recipe. */
    public static byte[] inputBytes(String name) {
        return generate(input(name).get("recipe"));
    }

    public static byte[] generate(JsonNode recipe) {
        String kind = recipe.get("kind").asText();
        return switch (kind) {
            case "splitmix64" -> splitmix(recipe.get("seed").asLong(), recipe.get("size").asInt());
            case "zeros" -> new byte[recipe.get("size").asInt()];
            case "repeat" -> {
                byte[] block = generate(recipe.get("block"));
                byte[] out = new byte[recipe.get("size").asInt()];
                for (int p = 0; p < out.length; p += block.length) {
                    System.arraycopy(block, 0, out, p, Math.min(block.length, out.length - p));
                }
                yield out;
            }
            case "patch" -> {
                byte[] out = inputBytes(recipe.get("base").asText());
                byte[] patch = generate(recipe.get("patch"));
                System.arraycopy(patch, 0, out, recipe.get("at").asInt(), patch.length);
                yield out;
            }
            case "u32le-ramp" -> {
                int size = recipe.get("size").asInt();
                ByteBuffer b = ByteBuffer.allocate(size + 4).order(ByteOrder.LITTLE_ENDIAN);
                int v = recipe.get("start").asInt();
                int step = recipe.get("step").asInt();
                while (b.position() < size) {
                    b.putInt(v);
                    v += step;
                }
                byte[] out = new byte[size];
                System.arraycopy(b.array(), 0, out, 0, size);
                yield out;
            }
            case "words" -> {
                int size = recipe.get("size").asInt();
                byte[] b = splitmix(recipe.get("seed").asLong(), size);
                List<String> words = new ArrayList<>();
                recipe.get("words").forEach(w -> words.add(w.asText()));
                StringBuilder sb = new StringBuilder(size + 16);
                for (int j = 0; sb.length() < size; j++) {
                    sb.append(words.get(b[j] & 7));
                }
                yield sb.substring(0, size).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            }
            default -> throw new IllegalArgumentException("unknown recipe " + kind);
        };
    }

    public static byte[] splitmix(long seed, int size) {
        SplittableRandom r = new SplittableRandom(seed);
        byte[] out = new byte[size];
        ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        for (int p = 0; p < size; p += 8) {
            b.clear();
            b.putLong(r.nextLong());
            System.arraycopy(b.array(), 0, out, p, Math.min(8, size - p));
        }
        return out;
    }
}
