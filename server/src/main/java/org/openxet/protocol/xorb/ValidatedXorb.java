package org.openxet.protocol.xorb;

import org.openxet.protocol.MerkleHash;

/**
 * A xorb body whose every chunk was decoded and hashed once, with the hash it proved and the footer data of that
 * same pass. Carries its digest the way a content-addressed blob should: nothing downstream hashes it again.
 *
 * @param hash          the xorb hash (merkle root of the chunks)
 * @param chunks        per-chunk hashes and offsets
 * @param schemeCounts  chunks per compression scheme: none, LZ4, BG4+LZ4
 * @param compressedBytes payload bytes of all chunk records (without their headers)
 * @param hadFooter     whether the body already ended in a footer (§3.4), which the stored object replaces
 */
public record ValidatedXorb(MerkleHash hash, ChunkTable chunks, int[] schemeCounts, long compressedBytes,
                            boolean hadFooter) {

    /** Bytes of the stored object: the chunk records plus a V1 footer (§3.5). */
    public long storedSize() {
        return chunks.recordBytes() + XorbFormat.footerSize(chunks.count());
    }

    /** The V1 footer and trailing info length to append after the chunk records. */
    public byte[] footer() {
        return XorbFooter.write(hash, chunks);
    }
}
