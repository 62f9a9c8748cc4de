package org.openxet.protocol;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;

import com.fasterxml.jackson.databind.JsonNode;

/** Generators of the testdata/vectors inputs (recipes in testdata/vectors/README.md) and shared test data. */
final class TestInputs {
    /** DATA_KEY (§1.2), raw bytes. */
    static final byte[] DATA_KEY = HexFormat.of().parseHex(
            "6697f5775b9550de3135cbaca597181c9de421109beb2b58b4d0b04b93adf229");

    private TestInputs() {
    }

    static Path vectorsDir() {
        String dir = System.getProperty("openxet.vectors.dir");
        if (dir == null) {
            throw new IllegalStateException("system property openxet.vectors.dir is not set (surefire sets it)");
        }
        return Path.of(dir);
    }

    /** splitmix64 bytes: each {@code SplittableRandom(seed).nextLong()} written little-endian, cut at size. */
    static byte[] splitmix64(long seed, int size) {
        SplittableRandom r = new SplittableRandom(seed);
        byte[] out = new byte[size];
        for (int i = 0; i < size; i += 8) {
            long v = r.nextLong();
            for (int b = 0; b < 8 && i + b < size; b++) {
                out[i + b] = (byte) (v >>> (8 * b));
            }
        }
        return out;
    }

    /** The "words" recipe: words[b[j] & 7] for the splitmix64 bytes b of seed, until size bytes, cut at size. */
    static byte[] words(long seed, int size, List<String> words) {
        byte[] b = splitmix64(seed, size);
        ByteArrayOutputStream text = new ByteArrayOutputStream(size + 16);
        for (int j = 0; text.size() < size; j++) {
            text.writeBytes(words.get(b[j] & 7).getBytes(StandardCharsets.US_ASCII));
        }
        return java.util.Arrays.copyOf(text.toByteArray(), size);
    }

    static byte[] u32Ramp(long start, long step, int size) {
        byte[] out = new byte[size];
        long v = start;
        for (int i = 0; i < size; i += 4, v += step) {
            for (int b = 0; b < 4 && i + b < size; b++) {
                out[i + b] = (byte) (v >>> (8 * b));
            }
        }
        return out;
    }

    /** Bytes of one input from its recipe; only the kinds the tests here need. */
    static byte[] fromRecipe(JsonNode recipe) {
        int size = recipe.get("size").asInt();
        return switch (recipe.get("kind").asText()) {
            case "zeros" -> new byte[size];
            case "splitmix64" -> splitmix64(recipe.get("seed").asLong(), size);
            case "u32le-ramp" -> u32Ramp(recipe.get("start").asLong(), recipe.get("step").asLong(), size);
            case "words" -> {
                List<String> w = new java.util.ArrayList<>();
                recipe.get("words").forEach(n -> w.add(n.asText()));
                yield words(recipe.get("seed").asLong(), size, w);
            }
            default -> throw new IllegalArgumentException("recipe kind not supported here: " + recipe);
        };
    }

    /** Text-like bytes (the "words" recipe's vocabulary) of a given size: compresses about 2:1 like the vectors. */
    static byte[] text(long seed, int size) {
        return words(seed, size, List.of("xet ", "chunk ", "hash ", "merkle ", "shard ", "xorb ", "blake3 ", "gear "));
    }
}
