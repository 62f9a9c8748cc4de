package org.openxet.service;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openxet.protocol.MerkleHash;
import org.openxet.storage.IndexException;
import org.openxet.storage.LocalBucket;
import org.openxet.storage.S3Bucket;
import org.openxet.storage.SqliteIndex;
import org.openxet.testing.DiskFull;
import org.openxet.testing.S3Server;
import org.openxet.testing.Vectors;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class XorbIngestTest {
    @TempDir
    Path dir;

    @Test
    void aFailedRegistrationRemovesTheObjectItStored() throws Exception {
        JsonNode x = Vectors.capture("single-r1m").get("xorbs").get(0);
        MerkleHash hash = MerkleHash.parse(x.get("xorb_hash").asText());
        byte[] body = Vectors.bytes(x.get("file").asText());
        Path db = dir.resolve("index.sqlite");
        try (SqliteIndex index = new SqliteIndex(db, 2)) {
            LocalBucket bucket = new LocalBucket(dir.resolve("bucket"));
            XorbIngest ingest = new XorbIngest(bucket, index);
            try (DiskFull full = DiskFull.on(db, "xorbs")) {
                assertThrows(IndexException.class, () -> ingest.ingest(hash, body, body.length));
                assertEquals(List.of(), bucket.list("xorbs"), "a xorb object nothing registered was left behind");
            }
            assertTrue(ingest.ingest(hash, body, body.length).inserted());
            assertEquals(List.of(XorbIngest.key(hash)), bucket.list("xorbs"));
        }
    }

    /** Another node may store the same content-addressed xorb and register it meanwhile: a shared bucket keeps it. */
    @Test
    void aFailedRegistrationLeavesTheObjectInASharedBucket() throws Exception {
        JsonNode x = Vectors.capture("single-r1m").get("xorbs").get(0);
        MerkleHash hash = MerkleHash.parse(x.get("xorb_hash").asText());
        byte[] body = Vectors.bytes(x.get("file").asText());
        Path db = dir.resolve("index.sqlite");
        try (SqliteIndex index = new SqliteIndex(db, 2); S3Bucket bucket = S3Server.shared().openFreshBucket()) {
            XorbIngest ingest = new XorbIngest(bucket, index);
            try (DiskFull full = DiskFull.on(db, "xorbs")) {
                assertThrows(IndexException.class, () -> ingest.ingest(hash, body, body.length));
            }
            assertEquals(List.of(XorbIngest.key(hash)), bucket.list("xorbs"));
            assertFalse(index.hasXorb(hash));
            assertTrue(ingest.ingest(hash, body, body.length).inserted());
        }
    }
}
