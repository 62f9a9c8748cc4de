package org.openxet.protocol.shard;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.openxet.protocol.MerkleHash;

/** The shards the JS client sent (testdata/vectors) against the structure recorded in each capture.json. */
class ClientShardVectorsTest {
    static List<String> scenarios() {
        return Vectors.scenarios();
    }

    @Test
    void everyScenarioFolderIsCovered() {
        assertEquals(14, scenarios().size(), "testdata/vectors/README.md lists 14 scenarios");
    }

    @ParameterizedTest
    @MethodSource("scenarios")
    void clientShardParsesToExactlyTheCapturedStructure(String scenario) throws Exception {
        byte[] body = Vectors.shard(scenario);
        JsonNode cap = Vectors.capture(scenario).get("shards").get(0);
        Shard shard = ShardParser.parse(body);

        assertFields(cap, "file", "size", "sha256", "creation_timestamp_byte_range", "header", "footer", "files", "xorbs");
        assertEquals(cap.get("size").asLong(), body.length);
        assertEquals(cap.get("sha256").asText(),
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body)));

        JsonNode h = cap.get("header");
        assertFields(h, "version", "footerSize");
        assertEquals(h.get("version").asLong(), shard.header().version());
        assertEquals(h.get("footerSize").asLong(), shard.header().footerSize());

        ShardFooter f = shard.footer();
        assertNotNull(f);
        JsonNode jf = cap.get("footer");
        assertFields(jf, "offset", "version", "fileInfoOffset", "casInfoOffset", "fileLookupOffset", "fileLookupNum",
                "casLookupOffset", "casLookupNum", "chunkLookupOffset", "chunkLookupNum", "chunkHashHmacKey",
                "creationTimestamp", "keyExpiry", "storedBytesOnDisk", "materializedBytes", "storedBytes",
                "footerOffset");
        assertEquals(jf.get("offset").asLong(), body.length - ShardFooter.SIZE);
        assertEquals(jf.get("version").asLong(), f.version());
        assertEquals(jf.get("fileInfoOffset").asLong(), f.fileInfoOffset());
        assertEquals(jf.get("casInfoOffset").asLong(), f.xorbInfoOffset());
        assertEquals(jf.get("fileLookupOffset").asLong(), f.fileLookupOffset());
        assertEquals(jf.get("fileLookupNum").asLong(), f.fileLookupNumEntry());
        assertEquals(jf.get("casLookupOffset").asLong(), f.xorbLookupOffset());
        assertEquals(jf.get("casLookupNum").asLong(), f.xorbLookupNumEntry());
        assertEquals(jf.get("chunkLookupOffset").asLong(), f.chunkLookupOffset());
        assertEquals(jf.get("chunkLookupNum").asLong(), f.chunkLookupNumEntry());
        assertEquals(MerkleHash.of(jf.get("chunkHashHmacKey").asText()), f.chunkHashHmacKey());
        assertEquals(jf.get("creationTimestamp").asLong(), f.shardCreationTimestamp());
        assertEquals(jf.get("keyExpiry").asLong(), f.shardKeyExpiry());
        assertEquals(jf.get("storedBytesOnDisk").asLong(), f.storedBytesOnDisk());
        assertEquals(jf.get("materializedBytes").asLong(), f.materializedBytes());
        assertEquals(jf.get("storedBytes").asLong(), f.storedBytes());
        assertEquals(jf.get("footerOffset").asLong(), f.footerOffset());
        JsonNode tsRange = cap.get("creation_timestamp_byte_range");
        assertEquals(f.footerOffset() + 104, tsRange.get(0).asLong());
        assertEquals(f.footerOffset() + 112, tsRange.get(1).asLong());

        JsonNode files = cap.get("files");
        assertEquals(files.size(), shard.files().size());
        for (int i = 0; i < files.size(); i++) {
            assertFileEquals(files.get(i), shard.files().get(i));
        }
        JsonNode xorbs = cap.get("xorbs");
        assertEquals(xorbs.size(), shard.xorbs().size());
        for (int i = 0; i < xorbs.size(); i++) {
            assertXorbEquals(xorbs.get(i), shard.xorbs().get(i));
        }
    }

    @ParameterizedTest
    @MethodSource("scenarios")
    void clientShardReserializesByteForByte(String scenario) throws Exception {
        byte[] body = Vectors.shard(scenario);
        assertArrayEquals(body, ShardWriter.write(ShardParser.parse(body)));
    }

    @ParameterizedTest
    @MethodSource("scenarios")
    void clientShardParsesInsideALargerBuffer(String scenario) throws Exception {
        byte[] body = Vectors.shard(scenario);
        byte[] padded = new byte[body.length + 100];
        System.arraycopy(body, 0, padded, 37, body.length);
        assertEquals(ShardParser.parse(body), ShardParser.parse(padded, 37, body.length));
    }

    @Test
    void modelFlowShardCarriesTheSha256OfTheFileAsUsualHex() {
        Shard shard = Vectors.parsed("model-flow-r131073");
        FileEntry file = shard.files().getFirst();
        assertEquals(0xC0000000, file.flags());
        assertEquals("515665f2002746eb7e729fdbb678d6374dbe793053f0c4d5736636589a0acb65", file.sha256().hex());
    }

    @Test
    void emptyFileIsOneEntryWithTheZeroHashAndNoTerms() {
        Shard shard = Vectors.parsed("single-empty");
        assertEquals(1, shard.files().size());
        assertEquals(MerkleHash.ZERO, shard.files().getFirst().fileHash());
        assertEquals(List.of(), shard.files().getFirst().terms());
        assertEquals(List.of(), shard.xorbs());
        assertFalse(shard.footer().announcesLookupTables());
    }

    private static void assertFileEquals(JsonNode jf, FileEntry f) {
        Set<String> keys = names(jf);
        assertEquals(jf.has("sha256") ? Set.of("hash", "flags", "entries", "verification", "sha256")
                : Set.of("hash", "flags", "entries", "verification"), keys);
        assertEquals(MerkleHash.of(jf.get("hash").asText()), f.fileHash());
        assertEquals(jf.get("flags").asLong(), Integer.toUnsignedLong(f.flags()));
        JsonNode entries = jf.get("entries");
        assertEquals(entries.size(), f.terms().size());
        for (int i = 0; i < entries.size(); i++) {
            JsonNode e = entries.get(i);
            FileTerm t = f.terms().get(i);
            assertFields(e, "xorbHash", "xorbFlags", "unpackedBytes", "chunkStart", "chunkEnd");
            assertEquals(MerkleHash.of(e.get("xorbHash").asText()), t.xorbHash());
            assertEquals(e.get("xorbFlags").asLong(), Integer.toUnsignedLong(t.xorbFlags()));
            assertEquals(e.get("unpackedBytes").asLong(), t.unpackedBytesUnsigned());
            assertEquals(e.get("chunkStart").asLong(), t.chunkStartUnsigned());
            assertEquals(e.get("chunkEnd").asLong(), t.chunkEndUnsigned());
        }
        JsonNode ver = jf.get("verification");
        assertEquals(ver.size(), f.verificationHashes().size());
        for (int i = 0; i < ver.size(); i++) {
            assertEquals(MerkleHash.of(ver.get(i).asText()), f.verificationHashes().get(i));
        }
        if (jf.has("sha256") && !jf.get("sha256").isNull()) {
            assertEquals(MerkleHash.of(jf.get("sha256").asText()), f.sha256());
        } else {
            assertNull(f.sha256());
        }
    }

    private static void assertXorbEquals(JsonNode jx, XorbBlock x) {
        assertFields(jx, "hash", "flags", "unpackedBytes", "bytesOnDisk", "chunks");
        assertEquals(MerkleHash.of(jx.get("hash").asText()), x.xorbHash());
        assertEquals(jx.get("flags").asLong(), Integer.toUnsignedLong(x.flags()));
        assertEquals(jx.get("unpackedBytes").asLong(), x.numBytesInXorbUnsigned());
        assertEquals(jx.get("bytesOnDisk").asLong(), x.numBytesOnDiskUnsigned());
        JsonNode chunks = jx.get("chunks");
        assertEquals(chunks.size(), x.chunks().size());
        for (int i = 0; i < chunks.size(); i++) {
            JsonNode jc = chunks.get(i);
            XorbChunkEntry c = x.chunks().get(i);
            assertFields(jc, "hash", "unpackedStart", "unpackedLength", "flags");
            assertEquals(MerkleHash.of(jc.get("hash").asText()), c.chunkHash());
            assertEquals(jc.get("unpackedStart").asLong(), c.byteRangeStartUnsigned());
            assertEquals(jc.get("unpackedLength").asLong(), c.unpackedBytesUnsigned());
            assertEquals(jc.get("flags").asLong(), Integer.toUnsignedLong(c.flags()));
        }
    }

    /** Fails on a field this test does not know, so a new capture field cannot go uncompared. */
    private static void assertFields(JsonNode node, String... expected) {
        assertEquals(new TreeSet<>(List.of(expected)), new TreeSet<>(names(node)));
    }

    private static Set<String> names(JsonNode node) {
        Set<String> s = new TreeSet<>();
        node.fieldNames().forEachRemaining(s::add);
        return s;
    }
}
