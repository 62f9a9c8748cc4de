package org.openxet.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.openxet.testing.Vectors;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class XetHashesTest {
    static List<String> inputs() {
        return Vectors.inputNames();
    }

    @Test
    void keysMatchTheVectorIndex() {
        JsonNode keys = Vectors.index().get("hash_keys");
        HexFormat hex = HexFormat.of();
        assertEquals(keys.get("chunk_data_key").asText(), hex.formatHex(XetHashes.DATA_KEY));
        assertEquals(keys.get("merkle_node_key").asText(), hex.formatHex(XetHashes.NODE_KEY));
        assertEquals(keys.get("verification_key").asText(), hex.formatHex(XetHashes.VERIFICATION_KEY));
        assertEquals(keys.get("file_hash_key").asText(), hex.formatHex(XetHashes.FILE_KEY));
    }

    @Test
    void derivedChunkHashesFromTheProtocolCard() {
        byte[] hello = "hello world".getBytes(StandardCharsets.US_ASCII);
        assertEquals("4e39378b9d359f118190557a1f44130219a54e5fcfa07bd96cf50b466fe651b1",
                XetHashes.chunkHash(hello, 0, hello.length).hex());
        assertEquals("e0f2cf784e7e5f10c34f84af150e9a5ff9664216debad915364d741049870f67",
                XetHashes.chunkHash(new byte[0], 0, 0).hex());
    }

    /** The §1.9 table from xet-core's aggregated_hashes.rs test_correctness. */
    @Test
    void upstreamMerkleAndFileHashVectors() {
        String a = "cfc5d07f6f03c29bbf424132963fe08d19a37d5757aaf520bf08119f05cd56d6";
        String b = "c3e67584b5c4fc2a89837ec39e40f2c8a6bb0b2987ac94cd4b31e5fbdd210a72";
        String c = "0d2beb91b9196929a5ddec9f6e306924ddf4a24268e3e59fd8464738d525af37";
        String zero = MerkleHash.ZERO.hex();
        check(new String[]{}, new long[]{}, zero, zero);
        check(new String[]{zero}, new long[]{0}, zero, "638a6bc391964a85939d48f008e8bdbae6a7975e7ca2d87a3ce2492f4e4d8a4c");
        check(new String[]{a}, new long[]{100}, a, "8e16257caa3fe079d484d872a8975264b2ff683b0d6db9028cc7c0f968a45661");
        check(new String[]{a, b, c}, new long[]{100, 200, 300},
                "71ec1275fca074724e2dd666921b3277c7cee603e4d025bcab2d4050015be2bc",
                "54e55dccc6653c612bdb5576c5d3cb34bb31bc4e100248abccf4c908b3ef7715");
        check(new String[]{a, a, a, a}, new long[]{100, 100, 100, 100},
                "89f2ada89ff8c96763c6b25010e6dd76a4c05b1466207633ea559acf2093211b",
                "2cdba690d0e09563596e0cda626d43eb4c96ef1e994fe72d9b2f5a83cfcd36dd");
        byte[] three = raw(a, b, c);
        assertEquals("e7d1c942ab36c1ad638402960daf8366a3a00a1ddaade5ef388abed02c49991b",
                XetHashes.verificationHash(three, 0, 3).hex());
        assertEquals("9434124c6ad9f5fb2ead555f8ec394c5679c1e779c81c05772cc9c1013462f40",
                XetHashes.verificationHash(three, 0, 1).hex());
    }

    private static void check(String[] hashes, long[] sizes, String xorb, String file) {
        byte[] raw = raw(hashes);
        assertEquals(xorb, XetHashes.merkleRoot(raw, sizes, hashes.length).hex());
        assertEquals(file, XetHashes.fileHash(raw, sizes, hashes.length).hex());
    }

    static byte[] raw(String... hashes) {
        byte[] raw = new byte[32 * hashes.length];
        for (int i = 0; i < hashes.length; i++) {
            MerkleHash.of(hashes[i]).writeTo(raw, 32 * i);
        }
        return raw;
    }

    @ParameterizedTest
    @MethodSource("inputs")
    void everyInputVectorReproduces(String name) {
        byte[] data = Vectors.inputBytes(name);
        JsonNode input = Vectors.input(name);
        assertEquals(input.get("size").asInt(), data.length);
        assertEquals(input.get("sha256").asText(), sha256(data));
        for (String block : new String[]{"hub_client", "xet_core_reference"}) {
            JsonNode b = input.get(block);
            JsonNode chunks = b.get("chunks");
            int n = chunks.size();
            byte[] raw = new byte[32 * n];
            long[] sizes = new long[n];
            for (int k = 0; k < n; k++) {
                JsonNode ch = chunks.get(k);
                MerkleHash h = XetHashes.chunkHash(data, ch.get("offset").asInt(), ch.get("length").asInt());
                assertEquals(ch.get("hash").asText(), h.hex(), block + " chunk " + k);
                h.writeTo(raw, 32 * k);
                sizes[k] = ch.get("length").asLong();
            }
            assertEquals(b.get("xorb_hash_of_all_chunks").asText(), XetHashes.merkleRoot(raw, sizes, n).hex(), block);
            assertEquals(b.get("file_hash").asText(), XetHashes.fileHash(raw, sizes, n).hex(), block);
            for (JsonNode v : b.get("verification_hashes")) {
                assertEquals(v.get("range_hash").asText(),
                        XetHashes.verificationHash(raw, v.get("chunk_start").asInt(), v.get("chunk_end").asInt()).hex(),
                        block + " verification " + v);
            }
        }
    }

    @Test
    void hmacExamplesKeyTheRawHash() {
        for (JsonNode ex : Vectors.index().get("hmac_examples")) {
            byte[] key = MerkleHash.of(ex.get("key").asText()).toBytes();
            assertEquals(ex.get("hmac").asText(),
                    XetHashes.keyedChunkHash(key, MerkleHash.of(ex.get("hash").asText())).hex());
        }
    }

    @Test
    void globalDedupEligibilityUsesWord3Mod1024() {
        assertEquals(true, XetHashes.isGlobalDedupEligible(MerkleHash.ofWords(5, 6, 7, 4096)));
        assertEquals(false, XetHashes.isGlobalDedupEligible(MerkleHash.ofWords(0, 0, 0, 4097)));
        assertEquals(true, XetHashes.isGlobalDedupEligible(MerkleHash.ofWords(0, 0, 0, -1024L)));
    }

    static String sha256(byte[] data) {
        try {
            return HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(data));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }
}
