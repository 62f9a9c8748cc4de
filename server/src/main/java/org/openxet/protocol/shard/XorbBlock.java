package org.openxet.protocol.shard;

import java.util.List;
import java.util.Objects;
import org.openxet.protocol.MerkleHash;

/**
 * One xorb of the xorb-info section (§4.3): the header fields and the chunk list. The chunk count is not a field
 * because it is the list's size. The int fields hold u32 values.
 *
 * @param numBytesInXorb sum of uncompressed chunk sizes
 * @param numBytesOnDisk serialized xorb length; hf_xet always sends 0, the JS client the xorb body length
 */
public record XorbBlock(MerkleHash xorbHash, int flags, int numBytesInXorb, int numBytesOnDisk,
                        List<XorbChunkEntry> chunks) {
    public XorbBlock {
        Objects.requireNonNull(xorbHash, "xorbHash");
        chunks = List.copyOf(chunks);
    }

    public long numBytesInXorbUnsigned() {
        return Integer.toUnsignedLong(numBytesInXorb);
    }

    public long numBytesOnDiskUnsigned() {
        return Integer.toUnsignedLong(numBytesOnDisk);
    }

    /** 48-byte records this block occupies, header included: the unit of xorb/chunk-lookup indices (§4.4). */
    public long recordCount() {
        return 1L + chunks.size();
    }
}
