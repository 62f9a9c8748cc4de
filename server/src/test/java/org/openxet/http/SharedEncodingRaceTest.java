package org.openxet.http;

import org.junit.jupiter.api.Test;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.XetHashes;
import org.openxet.protocol.shard.FileEntry;
import org.openxet.protocol.shard.FileTerm;
import org.openxet.protocol.shard.Shard;
import org.openxet.protocol.shard.ShardHeader;
import org.openxet.protocol.shard.ShardWriter;
import org.openxet.protocol.xorb.XorbBuilder;
import org.openxet.service.Access;
import org.openxet.service.ServerConfig;
import org.openxet.service.XorbIngest;
import org.openxet.testing.MiniClient;
import org.openxet.testing.PostgresServer;
import org.openxet.testing.S3Server;
import org.openxet.testing.TestServer;

import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * Two nodes on one PostgreSQL index and one S3 bucket (s3proxy) receive the same xorb at the same moment in two valid
 * encodings, LZ4 on one and uncompressed on the other, as honest clients with different settings send it. Whatever
 * order the writes land in, the stored object and the index's layout agree: every file using the xorb downloads its
 * exact bytes, whole and in ranges, from either node.
 */
class SharedEncodingRaceTest {
    static final int ROUNDS = 12;

    /** One file of one xorb, its two encodings and the shard that registers it. */
    record Fixture(MerkleHash xorb, byte[] lz4, byte[] raw, byte[] content, MerkleHash file, byte[] shard) {
        static Fixture of(long seed) {
            Random r = new Random(seed);
            int n = 24;
            XorbBuilder lz4 = new XorbBuilder(XorbBuilder.Compression.LZ4);
            XorbBuilder raw = new XorbBuilder(XorbBuilder.Compression.NONE);
            byte[] hashes = new byte[32 * n];
            long[] sizes = new long[n];
            ByteArrayOutputStream content = new ByteArrayOutputStream();
            for (int k = 0; k < n; k++) {
                byte[] chunk = new byte[8192 + r.nextInt(40_000)];
                r.nextBytes(chunk);
                for (int j = 0; j < chunk.length; j += 2) chunk[j] = 0; // compressible: the LZ4 encoding differs
                lz4.add(chunk, 0, chunk.length);
                raw.add(chunk, 0, chunk.length);
                XetHashes.chunkHash(chunk, 0, chunk.length).writeTo(hashes, 32 * k);
                sizes[k] = chunk.length;
                content.writeBytes(chunk);
            }
            MerkleHash xorb = XetHashes.merkleRoot(hashes, sizes, n);
            MerkleHash file = XetHashes.fileHash(hashes, sizes, n);
            byte[] bytes = content.toByteArray();
            FileEntry entry = new FileEntry(file, FileEntry.FLAG_WITH_VERIFICATION,
                    List.of(new FileTerm(xorb, 0, bytes.length, 0, n)),
                    List.of(XetHashes.verificationHash(hashes, 0, n)), null);
            byte[] shard = ShardWriter.write(new Shard(ShardHeader.withoutFooter(), List.of(entry), List.of(), null));
            return new Fixture(xorb, lz4.build(), raw.build(), bytes, file, shard);
        }
    }

    @Test
    void twoEncodingsRacedOnTwoNodesNeverLeaveTheIndexAndTheObjectApart() throws Exception {
        String index = PostgresServer.get().createDatabase("encoding_race");
        S3Server s3 = S3Server.shared();
        ServerConfig.Storage onS3 = s3.storage("s3://" + s3.createBucket() + "/cas");
        ServerConfig.Storage storage = new ServerConfig.Storage(index, onS3.bucketUrl(), onS3.s3Endpoint(), onS3.s3Region());
        ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
        try (TestServer lz4Node = new TestServer(c -> c.withStorage(storage));
             TestServer rawNode = new TestServer(c -> c.withStorage(storage), lz4Node)) {
            String write = lz4Node.writeToken();
            for (int r = 0; r < ROUNDS; r++) {
                int round = r;
                Fixture f = Fixture.of(round);
                assertNotEquals(f.lz4().length, f.raw().length, "two different encodings of one xorb");
                String path = "/v1/xorbs/default/" + f.xorb().hex();
                // Both uploads released at once; the second node a hair later in odd rounds, first in even ones.
                CountDownLatch go = new CountDownLatch(1);
                Future<Integer> a = pool.submit(() -> {
                    go.await();
                    return lz4Node.post(path, write, f.lz4()).statusCode();
                });
                Future<Integer> b = pool.submit(() -> {
                    go.await();
                    if (round % 2 == 1) Thread.onSpinWait();
                    return rawNode.post(path, write, f.raw()).statusCode();
                });
                go.countDown();
                assertEquals(200, a.get());
                assertEquals(200, b.get());
                assertEquals(200, (round % 2 == 0 ? lz4Node : rawNode).post("/v1/shards", write, f.shard()).statusCode());

                long indexed = lz4Node.services().index().xorb(f.xorb()).orElseThrow().storedBytes();
                assertEquals(indexed, lz4Node.services().bucket().read(XorbIngest.key(f.xorb())).length,
                        "round " + round + ": the index's layout is the stored object's");
                for (TestServer node : List.of(lz4Node, rawNode)) {
                    MiniClient client = new MiniClient(node, node.token("user/repo", Access.READ));
                    String id = f.file().hex();
                    for (int version : new int[]{2, 1}) {
                        assertArrayEquals(f.content(), client.download(version, id, null), "round " + round + " v" + version);
                    }
                    int len = f.content().length;
                    for (long[] range : new long[][]{{0, 0}, {1, 8191}, {8192, len / 2}, {len / 3, len - 1}, {len - 1, len - 1}}) {
                        assertArrayEquals(MiniClient.range(f.content(), range[0], range[1]),
                                client.download(2, id, "bytes=" + range[0] + "-" + range[1]),
                                "round " + round + " bytes " + range[0] + "-" + range[1]);
                    }
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
