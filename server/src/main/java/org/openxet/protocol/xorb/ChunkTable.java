package org.openxet.protocol.xorb;

import org.openxet.protocol.MerkleHash;

/**
 * What a xorb's footer records per chunk (§3.5): raw chunk hashes back to back ({@code hashes[32k]}), the end offset
 * of each chunk record in the object ({@code byteEnds[k]} = B[k]) and the cumulative uncompressed end
 * ({@code unpackedEnds[k]} = U[k]). Produced once by validation and handed on — to the footer writer, the index and
 * shard validation — never re-derived.
 */
public record ChunkTable(int count, byte[] hashes, int[] byteEnds, int[] unpackedEnds) {

    public MerkleHash hash(int k) {
        return MerkleHash.fromBytes(hashes, 32 * k);
    }

    public int byteStart(int k) {
        return k == 0 ? 0 : byteEnds[k - 1];
    }

    public int unpackedStart(int k) {
        return k == 0 ? 0 : unpackedEnds[k - 1];
    }

    public int unpackedLength(int k) {
        return unpackedEnds[k] - unpackedStart(k);
    }

    /** §3.7: object bytes of chunks {@code [a, b)} as {@code [start, endExclusive)}. */
    public long byteRangeStart(int a) {
        return byteStart(a);
    }

    public long byteRangeEnd(int b) {
        return byteEnds[b - 1];
    }

    /** Uncompressed length of chunks {@code [a, b)}. */
    public long unpackedLength(int a, int b) {
        return (long) unpackedEnds[b - 1] - unpackedStart(a);
    }

    /** Total bytes of the chunk records (where the footer starts). */
    public int recordBytes() {
        return count == 0 ? 0 : byteEnds[count - 1];
    }

    public long unpackedBytes() {
        return count == 0 ? 0 : Integer.toUnsignedLong(unpackedEnds[count - 1]);
    }

    public long[] chunkSizes() {
        long[] sizes = new long[count];
        for (int k = 0; k < count; k++) {
            sizes[k] = unpackedLength(k);
        }
        return sizes;
    }
}
