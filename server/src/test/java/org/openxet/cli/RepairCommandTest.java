package org.openxet.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.openxet.protocol.MerkleHash;
import org.openxet.service.Access;
import org.openxet.service.Repair;
import org.openxet.service.ServerConfig;
import org.openxet.service.XorbIngest;
import org.openxet.storage.LocalBucket;
import org.openxet.testing.MiniClient;
import org.openxet.testing.PostgresServer;
import org.openxet.testing.S3Server;
import org.openxet.testing.TestServer;
import org.openxet.testing.Vectors;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code openxet repair} beside a serving node, after real damage: the xorb is quarantined (its object moved aside,
 * HEAD 404), the client's next upload of it is stored again ({@code was_inserted: true}), and the file using it
 * downloads byte for byte once more; fsck is clean after. On SQLite with the local bucket (a flipped byte, found by
 * --deep) and on PostgreSQL with s3proxy (a deleted object).
 */
class RepairCommandTest {
    private static final String SCOPE = "user/repo";
    private static final String SCENARIO = "single-r1m";

    /** {@code openxet repair} in this JVM; it must succeed; its JSON summary. */
    private static JsonNode repair(String... args) throws Exception {
        List<String> all = new java.util.ArrayList<>(List.of("repair"));
        all.addAll(List.of(args));
        CliTest.Run r = CliTest.run(all.toArray(String[]::new));
        assertEquals(0, r.exit(), r.out() + "\n" + r.err());
        return r.lastJson();
    }

    private static MerkleHash xorb() throws Exception {
        return MerkleHash.parse(Vectors.capture(SCENARIO).get("xorbs").get(0).get("xorb_hash").asText());
    }

    /** HEAD, then the client's upload of the xorb again, then the file downloaded and compared with its input. */
    private static void clientHealsIt(TestServer s) throws Exception {
        String write = s.token(SCOPE, Access.WRITE);
        String path = "/v1/xorbs/default/" + xorb().hex();
        assertEquals(404, s.send(s.request(path, write).method("HEAD", HttpRequest.BodyPublishers.noBody()).build())
                .statusCode(), "quarantined: the client must upload it again");
        JsonNode capture = Vectors.capture(SCENARIO);
        HttpResponse<String> again = s.post(path, write, Vectors.bytes(capture.get("xorbs").get(0).get("file").asText()));
        assertEquals(200, again.statusCode(), again.body());
        assertEquals("{\"was_inserted\":true}", again.body());
        assertEquals(200, s.send(s.request(path, write).method("HEAD", HttpRequest.BodyPublishers.noBody()).build())
                .statusCode());
        JsonNode file = capture.get("files").get(0);
        assertArrayEquals(Vectors.inputBytes(file.get("input").asText()),
                new MiniClient(s, s.token(SCOPE, Access.READ)).download(2, file.get("client_xet_hash").asText(), null));
    }

    @Test
    void aFlippedByteIsQuarantinedAndTheClientsUploadBringsTheFileBack() throws Exception {
        try (TestServer s = new TestServer()) {
            s.uploadScenario(SCENARIO, s.token(SCOPE, Access.WRITE));
            LocalBucket bucket = (LocalBucket) s.services().bucket();
            Path object = bucket.path(XorbIngest.key(xorb()));
            byte[] original = Files.readAllBytes(object);
            try (FileChannel ch = FileChannel.open(object, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(new byte[]{(byte) (original[original.length / 2] ^ 0x01)}), original.length / 2);
            }
            JsonNode r = repair("--data", s.dataDir().toString(), "--deep", "--rate", "0");
            assertEquals(List.of(xorb().hex()), List.of(r.get("quarantined").get(0).asText()));
            String aside = Repair.QUARANTINE + XorbIngest.key(xorb());
            assertEquals(aside, r.get("moved_aside").get(0).asText());
            assertEquals(0, r.get("not_repaired").size());
            byte[] kept = bucket.read(aside);
            assertEquals(original.length, kept.length, "the damaged bytes are kept aside, not deleted");
            assertTrue(bucket.size(XorbIngest.key(xorb())).isEmpty());
            clientHealsIt(s);
            JsonNode fsck = FsckCommandTest.fsck("--data", s.dataDir().toString(), "--deep", "--rate", "0").lastJson();
            assertEquals(0, fsck.get("damaged").size() + fsck.get("missing").size() + fsck.get("files_affected").size(),
                    fsck.toString());
        }
    }

    /** A quarantined xorb sent back in another encoding cannot restore its files' byte ranges: 409, nothing stored. */
    @Test
    void aQuarantinedXorbComesBackOnlyInItsFirstEncoding() throws Exception {
        java.util.Random r = new java.util.Random(7);
        byte[][] chunks = new byte[8][];
        org.openxet.protocol.xorb.XorbBuilder lz4 = new org.openxet.protocol.xorb.XorbBuilder(
                org.openxet.protocol.xorb.XorbBuilder.Compression.LZ4);
        org.openxet.protocol.xorb.XorbBuilder raw = new org.openxet.protocol.xorb.XorbBuilder(
                org.openxet.protocol.xorb.XorbBuilder.Compression.NONE);
        byte[] hashes = new byte[32 * chunks.length];
        long[] sizes = new long[chunks.length];
        for (int k = 0; k < chunks.length; k++) {
            chunks[k] = new byte[20_000];
            for (int j = 0; j < chunks[k].length; j++) chunks[k][j] = (byte) (j % 7 == 0 ? r.nextInt() : 'a');
            lz4.add(chunks[k], 0, chunks[k].length);
            raw.add(chunks[k], 0, chunks[k].length);
            org.openxet.protocol.XetHashes.chunkHash(chunks[k], 0, chunks[k].length, hashes, 32 * k);
            sizes[k] = chunks[k].length;
        }
        MerkleHash hash = org.openxet.protocol.XetHashes.merkleRoot(hashes, sizes, chunks.length);
        byte[] first = lz4.build();
        byte[] other = raw.build();
        try (TestServer s = new TestServer()) {
            String write = s.token(SCOPE, Access.WRITE);
            String path = "/v1/xorbs/default/" + hash.hex();
            assertEquals("{\"was_inserted\":true}", s.post(path, write, first).body());
            assertTrue(s.services().index().quarantineXorb(hash, 1));
            s.services().bucket().delete(XorbIngest.key(hash));
            HttpResponse<String> refused = s.post(path, write, other);
            assertEquals(409, refused.statusCode(), refused.body());
            assertTrue(refused.body().startsWith("{\"error\":\"xorb_conflict\""), refused.body());
            assertTrue(s.services().bucket().size(XorbIngest.key(hash)).isEmpty(), "the other encoding is not kept");
            assertEquals("{\"was_inserted\":true}", s.post(path, write, first).body());
            assertEquals(200, s.send(s.request(path, write).method("HEAD", HttpRequest.BodyPublishers.noBody()).build())
                    .statusCode());
        }
    }

    @Test
    void aDeletedObjectIsQuarantinedAndComesBackOnPostgresAndS3() throws Exception {
        String url = PostgresServer.get().createDatabase("repair");
        try (S3Server s3 = S3Server.start()) {
            ServerConfig.Storage storage = new ServerConfig.Storage(url, "s3://" + s3.createBucket(), s3.endpoint(),
                    S3Server.REGION);
            try (TestServer s = new TestServer(c -> c.withStorage(storage))) {
                s.uploadScenario(SCENARIO, s.token(SCOPE, Access.WRITE));
                s.services().bucket().delete(XorbIngest.key(xorb()));
                Path config = Files.writeString(Files.createTempFile("openxet-repair", ".yaml"), "openxet:\n  index:\n"
                        + "    url: \"" + url + "\"\n  bucket:\n    url: " + storage.bucketUrl() + "\n  s3:\n    endpoint: "
                        + storage.s3Endpoint() + "\n    region: " + storage.s3Region() + "\n");
                JsonNode r = repair("--config", config.toString(), "--data", s.dataDir().toString());
                assertEquals(xorb().hex(), r.get("quarantined").get(0).asText());
                assertEquals(0, r.get("moved_aside").size(), "nothing to move: the object is gone");
                clientHealsIt(s);
            }
        }
    }
}
