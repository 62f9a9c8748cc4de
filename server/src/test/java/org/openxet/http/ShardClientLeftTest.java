package org.openxet.http;

import org.junit.jupiter.api.Test;
import org.openxet.protocol.MerkleBuilder;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.XetHashes;
import org.openxet.protocol.shard.FileEntry;
import org.openxet.protocol.shard.FileTerm;
import org.openxet.protocol.shard.Shard;
import org.openxet.protocol.shard.ShardHeader;
import org.openxet.protocol.shard.ShardWriter;
import org.openxet.testing.SyntheticXorb;
import org.openxet.testing.TestServer;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A v1 shard upload answers only when its validation is done, seconds of a core for a shard naming millions of
 * chunks; a client that leaves meanwhile stops that work at the server's next check, and nothing is stored.
 */
class ShardClientLeftTest {
    private static final int CHUNKS = 8192;
    /** 1,536 whole-xorb terms: 12.6 million chunks hashed into the file hash, about 3 s of a core. */
    private static final int TERMS = 1536;
    private static final Pattern ABANDONED = Pattern.compile("(?m)^openxet_shards_total\\{result=\"abandoned\"} (\\S+)$");

    @Test
    void aV1ClientThatLeavesDuringValidationStopsItAndNothingIsStored() throws Exception {
        try (TestServer server = new TestServer()) {
            String write = server.writeToken();
            SyntheticXorb x = SyntheticXorb.of(CHUNKS, 16, 41);
            assertEquals(200, server.post("/v1/xorbs/default/" + x.hash().hex(), write, x.body()).statusCode());
            MerkleBuilder chunks = new MerkleBuilder();
            for (int t = 0; t < TERMS; t++) {
                for (int k = 0; k < CHUNKS; k++) chunks.add(x.chunkHashes(), 32 * k, 16);
            }
            MerkleHash file = XetHashes.fileHash(chunks);
            FileTerm whole = new FileTerm(x.hash(), 0, 16 * CHUNKS, 0, CHUNKS);
            MerkleHash verification = XetHashes.verificationHash(x.chunkHashes(), 0, CHUNKS);
            byte[] shard = ShardWriter.write(new Shard(ShardHeader.withoutFooter(), List.of(new FileEntry(file,
                    FileEntry.FLAG_WITH_VERIFICATION, Collections.nCopies(TERMS, whole),
                    Collections.nCopies(TERMS, verification), null)), List.of(), null));
            String head = "POST /v1/shards HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + write
                    + "\r\nContent-Length: " + shard.length + "\r\n\r\n";
            Map<String, Long> before = server.storedCounts();

            // The whole body, then the socket closed, as an aborted fetch or a killed client leaves it.
            try (Socket s = new Socket("127.0.0.1", server.port())) {
                OutputStream out = s.getOutputStream();
                out.write(head.getBytes(StandardCharsets.US_ASCII));
                out.write(shard);
                out.flush();
            }
            assertEquals(1.0, abandonedWithin(server, 30_000), "the validation was stopped");
            assertEquals(before, server.storedCounts());
            assertEquals(404, server.get("/v1/reconstructions/" + file.hex(), write).statusCode());

            // The same shard from a client that waits registers: it was valid, only its client had gone. This one
            // also sends a byte of a next request during the validation, which the server's check consumes: the
            // answer is whole, and the connection ends after it because that request cannot be read any more.
            try (Socket s = new Socket("127.0.0.1", server.port())) {
                s.setSoTimeout(60_000);
                OutputStream out = s.getOutputStream();
                out.write(head.getBytes(StandardCharsets.US_ASCII));
                out.write(shard);
                out.flush();
                Thread.sleep(100);
                out.write('G');
                out.flush();
                InputStream in = s.getInputStream();
                String answer = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
                assertTrue(answer.startsWith("HTTP/1.1 200 OK\r\n"), answer);
                assertTrue(answer.toLowerCase().contains("\r\nconnection: close\r\n"), answer);
                assertTrue(answer.endsWith("\r\n\r\n{\"result\":1}"), answer);
            }
            assertEquals(1.0, abandonedWithin(server, 0), "the waiting client's validation ran to its end");
            assertEquals(200, server.get("/v1/reconstructions/" + file.hex(), write).statusCode());
        }
    }

    /** The abandoned-shard counter once it is non-zero, or after {@code millis}. */
    private static double abandonedWithin(TestServer server, long millis) throws Exception {
        long deadline = System.nanoTime() + millis * 1_000_000;
        while (true) {
            Matcher m = ABANDONED.matcher(server.get("/metrics", null).body());
            double n = m.find() ? Double.parseDouble(m.group(1)) : 0;
            if (n > 0 || System.nanoTime() > deadline) return n;
            Thread.sleep(50);
        }
    }
}
