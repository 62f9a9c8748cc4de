package org.openxet.protocol.shard;

import java.util.ArrayList;
import java.util.List;
import org.openxet.protocol.Blake3;
import org.openxet.protocol.MerkleHash;

/**
 * Builds the body of a global-dedup answer ({@code GET /v1/chunks/{prefix}/{hash}}, §4.8, §5.7): a shard with an
 * empty file section, the disclosed xorb blocks with keyed chunk hashes (§1.7), and a footer.
 *
 * <p>Layout choice. xet-core's {@code export_as_keyed_shard} can emit a xorb and a chunk lookup table (the latter over
 * the keyed hashes); {@code serialize_xorb_subset_with_expiry} emits none but still sets every lookup offset to the
 * end of the xorb section. We emit both tables, like the former with all options on, and lay all offsets out as
 * xet-core does, because:
 * <ul>
 *   <li>the JS client (§11) reads the xorb section from {@code xorb_info_offset} up to {@code file_lookup_offset}:
 *       that offset must be the end of the xorb section, never 0 (0 there silently yields no dedup);</li>
 *   <li>hf_xet uses the chunk lookup table when present and scans the section otherwise (§4.4), so a correct table
 *       only saves it a scan; a table must then use the truncated keyed hashes;</li>
 *   <li>the file lookup table is empty because the file section is (spec shard.md: no file info in dedup shards).</li>
 * </ul>
 * The header says footer_size 200 and the footer sits in the last 200 bytes with footer_offset + 200 = length, which
 * both clients require; materialized_bytes is 0 (no files).
 */
public final class DedupShardBuilder {
    private DedupShardBuilder() {
    }

    /**
     * @param blocks            xorb blocks with raw chunk hashes, in the order to disclose them
     * @param hmacKey32         32 raw key bytes; all zero means "no key" and the raw hashes are disclosed
     * @param creationTimestamp Unix seconds
     * @param keyExpiry         Unix seconds after which the client stops trusting this answer
     */
    public static byte[] build(List<XorbBlock> blocks, byte[] hmacKey32, long creationTimestamp, long keyExpiry) {
        if (hmacKey32.length != MerkleHash.LENGTH) {
            throw new IllegalArgumentException("the HMAC key has 32 bytes, got " + hmacKey32.length);
        }
        MerkleHash key = MerkleHash.fromBytes(hmacKey32);
        List<XorbBlock> disclosed = key.isZero() ? blocks : keyed(blocks, hmacKey32);
        return ShardWriter.write(ShardWriter.withLookupTables(List.of(), disclosed, key, creationTimestamp, keyExpiry));
    }

    /** Same blocks with every chunk hash h replaced by BLAKE3_keyed(key, raw h) (§1.7); sizes and flags kept. */
    static List<XorbBlock> keyed(List<XorbBlock> blocks, byte[] key) {
        int n = 0;
        for (XorbBlock x : blocks) {
            n = Math.addExact(n, x.chunks().size());
        }
        // One buffer and one batch call: the native backend hashes all of them in a single downcall.
        byte[] raw = new byte[Math.multiplyExact(n, MerkleHash.LENGTH)];
        int[] offsets = new int[n];
        int[] lengths = new int[n];
        int i = 0;
        for (XorbBlock x : blocks) {
            for (XorbChunkEntry c : x.chunks()) {
                offsets[i] = i * MerkleHash.LENGTH;
                lengths[i] = MerkleHash.LENGTH;
                c.chunkHash().writeTo(raw, offsets[i]);
                i++;
            }
        }
        byte[] out = new byte[raw.length];
        if (n > 0) {
            Blake3.get().keyedHashBatch(key, raw, offsets, lengths, n, out);
        }
        List<XorbBlock> result = new ArrayList<>(blocks.size());
        i = 0;
        for (XorbBlock x : blocks) {
            List<XorbChunkEntry> chunks = new ArrayList<>(x.chunks().size());
            for (XorbChunkEntry c : x.chunks()) {
                chunks.add(c.withHash(MerkleHash.fromBytes(out, MerkleHash.LENGTH * i++)));
            }
            result.add(new XorbBlock(x.xorbHash(), x.flags(), x.numBytesInXorb(), x.numBytesOnDisk(), chunks));
        }
        return result;
    }
}
