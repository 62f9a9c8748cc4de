package org.openxet.protocol.shard;

import java.util.Objects;
import org.openxet.protocol.MerkleHash;

/**
 * One chunk of a xorb block ({@code XorbChunkSequenceEntry}, §4.3). The int fields hold u32 values.
 *
 * @param chunkHash      raw chunk hash, or keyed (§1.7) in a dedup shard with an HMAC key
 * @param byteRangeStart cumulative uncompressed offset of the chunk inside its xorb
 * @param unpackedBytes  uncompressed chunk length
 * @param flags          bit 31 = global-dedup eligible (§1.8); other bits kept as received
 */
public record XorbChunkEntry(MerkleHash chunkHash, int byteRangeStart, int unpackedBytes, int flags) {
    public static final int FLAG_GLOBAL_DEDUP = 0x80000000;

    public XorbChunkEntry {
        Objects.requireNonNull(chunkHash, "chunkHash");
    }

    public boolean globalDedupEligible() {
        return (flags & FLAG_GLOBAL_DEDUP) != 0;
    }

    public long byteRangeStartUnsigned() {
        return Integer.toUnsignedLong(byteRangeStart);
    }

    public long unpackedBytesUnsigned() {
        return Integer.toUnsignedLong(unpackedBytes);
    }

    /** The same entry under another hash: how a dedup shard discloses keyed hashes (§4.8). */
    public XorbChunkEntry withHash(MerkleHash hash) {
        return new XorbChunkEntry(hash, byteRangeStart, unpackedBytes, flags);
    }
}
