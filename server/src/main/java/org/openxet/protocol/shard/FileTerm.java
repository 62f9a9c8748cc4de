package org.openxet.protocol.shard;

import java.util.Objects;
import org.openxet.protocol.MerkleHash;

/**
 * One reconstruction term of a file ({@code FileDataSequenceEntry}, §4.2): chunks {@code [chunkStart, chunkEnd)} of
 * one xorb. The int fields hold u32 values; use the {@code ...Unsigned} accessors for arithmetic.
 */
public record FileTerm(MerkleHash xorbHash, int xorbFlags, int unpackedBytes, int chunkStart, int chunkEnd) {
    public FileTerm {
        Objects.requireNonNull(xorbHash, "xorbHash");
    }

    public long unpackedBytesUnsigned() {
        return Integer.toUnsignedLong(unpackedBytes);
    }

    public long chunkStartUnsigned() {
        return Integer.toUnsignedLong(chunkStart);
    }

    public long chunkEndUnsigned() {
        return Integer.toUnsignedLong(chunkEnd);
    }
}
