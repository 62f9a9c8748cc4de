package org.openxet.testing;

import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.XetHashes;
import org.openxet.protocol.shard.XorbChunkEntry;
import org.openxet.protocol.xorb.XorbBuilder;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A xorb of {@code n} random uncompressed chunks of one size: its upload body, its chunks, their raw hashes back to
 * back, and the shard's view of it ({@link XorbChunkEntry}s).
 */
public record SyntheticXorb(MerkleHash hash, byte[] body, List<byte[]> chunks, byte[] chunkHashes,
                            List<XorbChunkEntry> entries, int chunkSize) {
    /** Chunk {@code i} is the {@code i}th {@code size} bytes drawn from {@code new SplittableRandom(seed)}. */
    public static SyntheticXorb of(int n, int size, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        XorbBuilder body = new XorbBuilder(XorbBuilder.Compression.NONE);
        List<byte[]> chunks = new ArrayList<>();
        byte[] raw = new byte[32 * n];
        long[] sizes = new long[n];
        List<XorbChunkEntry> entries = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] c = new byte[size];
            r.nextBytes(c);
            chunks.add(c);
            body.add(c, 0, size);
            XetHashes.chunkHash(c, 0, size).writeTo(raw, 32 * i);
            sizes[i] = size;
            entries.add(new XorbChunkEntry(MerkleHash.fromBytes(raw, 32 * i), size * i, size, 0));
        }
        return new SyntheticXorb(XetHashes.merkleRoot(raw, sizes, n), body.build(), chunks, raw, entries, size);
    }
}
