package org.openxet.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import net.jpountz.lz4.LZ4Factory;
import org.openxet.protocol.xorb.XorbFormat;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Decodes the LZ4 and BG4 chunks of xorbs the JS client really uploaded (testdata/vectors): the header fields match
 * the capture, every decoder gives the same bytes, their chunk hash is the one in the shard, and they are the bytes
 * of the input regenerated from its recipe.
 */
class ClientXorbChunksTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @ParameterizedTest
    @ValueSource(strings = {"single-zeros-1m", "single-words-512k", "single-u32ramp-256k"})
    void decodesEveryChunkToItsHashAndInputBytes(String scenario) throws IOException, FormatException,
            NoSuchAlgorithmException {
        Path vectors = TestInputs.vectorsDir();
        JsonNode capture = JSON.readTree(vectors.resolve("scenarios").resolve(scenario).resolve("capture.json")
                .toFile());
        JsonNode xorb = capture.get("xorbs").get(0);
        byte[] body = Files.readAllBytes(vectors.resolve(xorb.get("file").asText()));
        assertEquals(xorb.get("size").asInt(), body.length);

        String inputName = capture.get("files").get(0).get("input").asText();
        JsonNode input = JSON.readTree(vectors.resolve("inputs").resolve(inputName + ".json").toFile());
        byte[] inputBytes = TestInputs.fromRecipe(input.get("recipe"));
        assertEquals(input.get("sha256").asText(),
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(inputBytes)),
                "regenerated input " + inputName);
        Map<String, JsonNode> inputChunks = new HashMap<>();
        input.get("hub_client").get("chunks").forEach(c -> inputChunks.put(c.get("hash").asText(), c));

        try (Lz4FrameDecoder ffm = Lz4.newFfmDecoder();
             Lz4FrameDecoder jni = Lz4.newLz4JavaDecoder();
             Lz4FrameDecoder pure = new JavaLz4FrameDecoder(LZ4Factory.safeInstance())) {
            int p = 0;
            for (JsonNode chunk : xorb.get("chunks")) {
                assertEquals(chunk.get("byte_start").asInt(), p);
                assertEquals(0, body[p], "header version");
                int compressed = XorbFormat.u24(body, p + 1);
                int scheme = body[p + 4];
                int length = XorbFormat.u24(body, p + 5);
                assertEquals(chunk.get("compressed_length").asInt(), compressed);
                assertEquals(chunk.get("compression_scheme").asInt(), scheme);
                assertEquals(chunk.get("uncompressed_length").asInt(), length);
                int payload = p + 8;

                byte[] decoded = null;
                for (Lz4FrameDecoder d : List.of(ffm, jni, pure)) {
                    byte[] out = new byte[length];
                    d.decodeFrame(body, payload, compressed, out, 0, length);
                    if (scheme == 2) {
                        byte[] grouped = out;
                        out = new byte[length];
                        ByteGrouping4.regroup(grouped, 0, length, out, 0);
                    }
                    if (decoded != null) {
                        assertArrayEquals(decoded, out, "decoders disagree on chunk " + chunk.get("index"));
                    }
                    decoded = out;
                }
                String hash = chunk.get("hash").asText();
                assertEquals(hash, Blake3.get().keyedHash(TestInputs.DATA_KEY, decoded, 0, length).hex(),
                        "chunk " + chunk.get("index"));
                JsonNode source = inputChunks.get(hash);
                assertNotNull(source, "chunk " + hash + " is one of the input's chunks");
                int offset = source.get("offset").asInt();
                assertArrayEquals(Arrays.copyOfRange(inputBytes, offset, offset + length), decoded);

                if (scheme == 2) {
                    // The client's payload is BG4 split, then LZ4: our split must produce the bytes it compressed.
                    byte[] grouped = new byte[length];
                    ByteGrouping4.split(decoded, 0, length, grouped, 0);
                    byte[] payloadDecoded = new byte[length];
                    ffm.decodeFrame(body, payload, compressed, payloadDecoded, 0, length);
                    assertArrayEquals(payloadDecoded, grouped);
                }
                p = payload + compressed;
            }
            assertEquals(body.length, p, "no bytes after the last chunk");
        }
    }
}
