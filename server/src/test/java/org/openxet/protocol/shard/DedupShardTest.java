package org.openxet.protocol.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openxet.protocol.JavaBlake3;
import org.openxet.protocol.MerkleHash;

/** The global-dedup answer shard (§4.8) as both clients read it. */
class DedupShardTest {
    private static final long NOW = 1_800_000_000L;
    private static final long EXPIRY = NOW + 7 * 86_400;

    private static List<XorbBlock> realBlocks() {
        List<XorbBlock> blocks = new ArrayList<>(Vectors.parsed("single-r3m").xorbs());
        blocks.addAll(Vectors.parsed("edit-after-base").xorbs());
        blocks.addAll(Vectors.parsed("single-repeat-2m").xorbs());
        return blocks;
    }

    private static byte[] key() {
        byte[] key = new byte[32];
        for (int i = 0; i < 32; i++) {
            key[i] = (byte) (7 * i + 3);
        }
        return key;
    }

    @Test
    void keyedChunkHashesMatchTheHmacExamplesOfTheVectors() throws Exception {
        JsonNode examples = Vectors.index().get("hmac_examples");
        assertTrue(examples.size() > 0);
        for (JsonNode ex : examples) {
            MerkleHash raw = MerkleHash.of(ex.get("hash").asText());
            byte[] key = MerkleHash.of(ex.get("key").asText()).toBytes();
            XorbBlock block = new XorbBlock(MerkleHash.of(ex.get("hash").asText()), 0, 10, 18,
                    List.of(new XorbChunkEntry(raw, 0, 10, 0)));
            Shard shard = ShardParser.parse(DedupShardBuilder.build(List.of(block), key, NOW, EXPIRY));
            assertEquals(MerkleHash.of(ex.get("hmac").asText()), shard.xorbs().getFirst().chunks().getFirst().chunkHash());
            assertEquals(MerkleHash.fromBytes(key), shard.footer().chunkHashHmacKey());
        }
    }

    @Test
    void dedupShardParsesBackWithEveryChunkHashKeyedAndEverythingElseKept() throws Exception {
        List<XorbBlock> blocks = realBlocks();
        byte[] key = key();
        Shard shard = ShardParser.parse(DedupShardBuilder.build(blocks, key, NOW, EXPIRY));
        assertEquals(List.of(), shard.files());
        assertEquals(blocks.size(), shard.xorbs().size());
        for (int i = 0; i < blocks.size(); i++) {
            XorbBlock in = blocks.get(i);
            XorbBlock out = shard.xorbs().get(i);
            assertEquals(in.xorbHash(), out.xorbHash());
            assertEquals(in.flags(), out.flags());
            assertEquals(in.numBytesInXorb(), out.numBytesInXorb());
            assertEquals(in.numBytesOnDisk(), out.numBytesOnDisk());
            assertEquals(in.chunks().size(), out.chunks().size());
            for (int k = 0; k < in.chunks().size(); k++) {
                XorbChunkEntry a = in.chunks().get(k);
                XorbChunkEntry b = out.chunks().get(k);
                byte[] expected = new byte[32];
                JavaBlake3.INSTANCE.keyedHash(key, a.chunkHash().toBytes(), 0, 32, expected, 0);
                assertEquals(MerkleHash.fromBytes(expected), b.chunkHash(), "keyed(h) = BLAKE3_keyed(key, raw h)");
                assertNotEquals(a.chunkHash(), b.chunkHash());
                assertEquals(a.withHash(b.chunkHash()), b, "byte_range_start, size and flags unchanged");
            }
        }
    }

    @Test
    void dedupFooterPointsPastTheXorbSectionAndEndsTheBody() throws Exception {
        List<XorbBlock> blocks = realBlocks();
        byte[] body = DedupShardBuilder.build(blocks, key(), NOW, EXPIRY);
        Shard shard = ShardParser.parse(body);
        ShardFooter f = shard.footer();
        assertEquals(ShardHeader.withFooter(), shard.header());
        assertEquals(1, f.version());
        assertEquals(body.length, f.footerOffset() + 200);
        assertEquals(48, f.fileInfoOffset());
        assertEquals(96, f.xorbInfoOffset(), "file section is the bookend only");
        assertTrue(f.fileLookupOffset() > 0, "0 here means no dedup for the JS client (§11)");
        assertEquals(shard.xorbSectionEnd(), f.fileLookupOffset());
        assertEquals(0, f.fileLookupNumEntry());
        assertEquals(f.fileLookupOffset(), f.xorbLookupOffset());
        assertEquals(blocks.size(), f.xorbLookupNumEntry());
        assertEquals(shard.totalChunks(), f.chunkLookupNumEntry());
        assertEquals(MerkleHash.fromBytes(key()), f.chunkHashHmacKey());
        assertEquals(NOW, f.shardCreationTimestamp());
        assertEquals(EXPIRY, f.shardKeyExpiry());
        assertEquals(0, f.materializedBytes());
        long onDisk = 0;
        long inXorb = 0;
        for (XorbBlock x : blocks) {
            onDisk += x.numBytesOnDiskUnsigned();
            inXorb += x.numBytesInXorbUnsigned();
        }
        assertEquals(onDisk, f.storedBytesOnDisk());
        assertEquals(inXorb, f.storedBytes());
    }

    @Test
    void chunkLookupUsesTheTruncatedKeyedHashes() throws Exception {
        byte[] body = DedupShardBuilder.build(realBlocks(), key(), NOW, EXPIRY);
        Shard shard = ShardParser.parse(body);
        ShardFooter f = shard.footer();
        for (int i = 0; i < f.chunkLookupNumEntry(); i++) {
            int p = (int) f.chunkLookupOffset() + 16 * i;
            int xorbRecord = Le.u32(body, p + 8);
            int offset = Le.u32(body, p + 12);
            long keyedWord0 = Le.u64(body, (int) f.xorbInfoOffset() + 48 * (xorbRecord + 1 + offset));
            assertEquals(keyedWord0, Le.u64(body, p));
        }
    }

    @Test
    void zeroKeyDisclosesTheRawHashes() throws Exception {
        List<XorbBlock> blocks = realBlocks();
        Shard shard = ShardParser.parse(DedupShardBuilder.build(blocks, new byte[32], NOW, EXPIRY));
        assertEquals(blocks, shard.xorbs());
        assertEquals(MerkleHash.ZERO, shard.footer().chunkHashHmacKey());
    }

    @Test
    void theJsClientReadingOfTheAnswerFindsEveryXorbAndChunk() {
        // What @huggingface/hub does with the body (§11): footer at length − footer_size, walk the xorb section from
        // xorb_info_offset while below file_lookup_offset, stop at the bookend.
        List<XorbBlock> blocks = realBlocks();
        byte[] body = DedupShardBuilder.build(blocks, key(), NOW, EXPIRY);
        int footerStart = body.length - (int) Le.u64(body, 40);
        assertEquals(1, Le.u64(body, footerStart));
        int p = (int) Le.u64(body, footerStart + 16);
        int end = (int) Le.u64(body, footerStart + 24);
        List<MerkleHash> xorbs = new ArrayList<>();
        int chunks = 0;
        while (p < end) {
            MerkleHash h = MerkleHash.fromBytes(body, p);
            if (h.isMarker()) {
                break;
            }
            xorbs.add(h);
            int n = Le.u32(body, p + 36);
            chunks += n;
            p += 48 + 48 * n;
        }
        assertEquals(blocks.stream().map(XorbBlock::xorbHash).toList(), xorbs);
        assertEquals(blocks.stream().mapToInt(x -> x.chunks().size()).sum(), chunks);
    }

    @Test
    void answerWithNoBlocksIsStillAValidShard() throws Exception {
        byte[] body = DedupShardBuilder.build(List.of(), key(), NOW, EXPIRY);
        Shard shard = ShardParser.parse(body);
        assertEquals(List.of(), shard.xorbs());
        assertEquals(144, shard.footer().fileLookupOffset());
    }
}
