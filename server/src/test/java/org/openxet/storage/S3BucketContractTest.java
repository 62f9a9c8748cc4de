package org.openxet.storage;

import org.junit.jupiter.api.Test;
import org.openxet.testing.S3Server;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The {@link Bucket} contract on a real S3-compatible server (s3proxy over loopback), plus what only S3 has. */
class S3BucketContractTest extends BucketContractTest {
    @Override
    Bucket open() throws Exception {
        return S3Server.shared().openFreshBucket();
    }

    @Test
    void anS3BucketIsShared() {
        assertTrue(bucket.shared());
    }

    /**
     * A signed-URL fetch asks for its object's size every time: a size once seen (stored or looked up) is answered
     * without asking the store again, here while the store is down; a size never seen still asks (and fails then).
     */
    @Test
    void aSizeOnceSeenIsKnownWithoutAskingTheStoreAgain() throws Exception {
        S3Server own = S3Server.start();
        String name = own.createBucket();
        try (S3Bucket b = S3Bucket.open("s3://" + name, own.endpoint(), S3Server.REGION)) {
            b.put(XORB_A, new byte[]{1, 2, 3});
            own.client().putObject(r -> r.bucket(name).key(XORB_B), RequestBody.fromBytes(new byte[5]));
            assertEquals(Optional.of(5L), b.size(XORB_B));
            own.close();
            assertEquals(Optional.of(3L), b.size(XORB_A));
            assertEquals(Optional.of(5L), b.size(XORB_B));
            assertThrows(IOException.class, () -> b.size(SHARD));
        } finally {
            own.close();
        }
    }

    @Test
    void keysLiveUnderTheUrlsPrefixAndListWithoutIt() throws Exception {
        S3Server s3 = S3Server.shared();
        String name = s3.createBucket();
        try (S3Bucket prefixed = S3Bucket.open("s3://" + name + "/cas/node-pool/", s3.endpoint(), S3Server.REGION);
             S3Bucket whole = S3Bucket.open("s3://" + name, s3.endpoint(), S3Server.REGION)) {
            whole.put(XORB_B, new byte[]{1});
            prefixed.put(XORB_A, new byte[]{2, 3});
            assertEquals(List.of(XORB_A), prefixed.list("xorbs"));
            assertEquals(List.of("cas/node-pool/" + XORB_A, XORB_B),
                    s3.client().listObjectsV2(b -> b.bucket(name)).contents().stream().map(S3Object::key).sorted().toList());
            assertEquals(List.of("cas/node-pool/" + XORB_A), whole.list("cas"));
        }
    }

    @Test
    void openingAnAbsentBucketOrADeadEndpointFailsAtOnceWithOneLine() throws Exception {
        S3Server s3 = S3Server.shared();
        IOException absent = assertThrows(IOException.class,
                () -> S3Bucket.open("s3://no-such-bucket-here", s3.endpoint(), S3Server.REGION));
        assertEquals("S3 bucket s3://no-such-bucket-here (" + s3.endpoint() + ", region us-east-1) is not reachable: "
                + "no such bucket", absent.getMessage());
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        IOException dead = assertThrows(IOException.class,
                () -> S3Bucket.open("s3://anything", "http://127.0.0.1:" + port, S3Server.REGION));
        assertTrue(dead.getMessage().startsWith("S3 bucket s3://anything (http://127.0.0.1:" + port
                + ", region us-east-1) is not reachable: "), dead.getMessage());
        assertEquals(1, dead.getMessage().lines().count(), dead.getMessage());
    }
}
