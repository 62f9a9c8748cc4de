package org.openxet.protocol.shard;

import java.util.Objects;
import org.openxet.protocol.MerkleHash;

/**
 * The 200-byte footer at the end of a shard ({@code MDBShardFileFooter}, §4.5). All fields are u64 held in longs
 * (compare with {@link Long#compareUnsigned}); {@code shardKeyExpiry} is {@code -1L} for "never" (u64::MAX). The six
 * reserved u64 at bytes 120..167 are not kept: writers put 0 there and no reader looks at them.
 *
 * @param chunkHashHmacKey the key of §1.7 as 32 raw bytes wrapped in a {@link MerkleHash}; all-zero = raw hashes
 */
public record ShardFooter(long version, long fileInfoOffset, long xorbInfoOffset,
                          long fileLookupOffset, long fileLookupNumEntry,
                          long xorbLookupOffset, long xorbLookupNumEntry,
                          long chunkLookupOffset, long chunkLookupNumEntry,
                          MerkleHash chunkHashHmacKey, long shardCreationTimestamp, long shardKeyExpiry,
                          long storedBytesOnDisk, long materializedBytes, long storedBytes, long footerOffset) {
    public static final int SIZE = 200;
    public static final long VERSION = 1;
    /** Bytes per file/xorb lookup entry (u64 key + u32 index) and per chunk lookup entry (u64 + 2 × u32), §4.4. */
    static final int FILE_LOOKUP_ENTRY = 12;
    static final int XORB_LOOKUP_ENTRY = 12;
    static final int CHUNK_LOOKUP_ENTRY = 16;

    public ShardFooter {
        Objects.requireNonNull(chunkHashHmacKey, "chunkHashHmacKey");
    }

    /** True when any lookup table is announced; a shard with all lookup fields zero (JS client) has none. */
    public boolean announcesLookupTables() {
        return (fileLookupOffset | fileLookupNumEntry | xorbLookupOffset | xorbLookupNumEntry
                | chunkLookupOffset | chunkLookupNumEntry) != 0;
    }

    public boolean hasHmacKey() {
        return !chunkHashHmacKey.isZero();
    }

    static ShardFooter read(byte[] b, int off) {
        return new ShardFooter(Le.u64(b, off), Le.u64(b, off + 8), Le.u64(b, off + 16),
                Le.u64(b, off + 24), Le.u64(b, off + 32), Le.u64(b, off + 40), Le.u64(b, off + 48),
                Le.u64(b, off + 56), Le.u64(b, off + 64), MerkleHash.fromBytes(b, off + 72),
                Le.u64(b, off + 104), Le.u64(b, off + 112),
                Le.u64(b, off + 168), Le.u64(b, off + 176), Le.u64(b, off + 184), Le.u64(b, off + 192));
    }

    /** Writes all 200 bytes; the reserved words are written as zero (the caller's buffer may not be fresh). */
    void writeTo(byte[] b, int off) {
        Le.putU64(b, off, version);
        Le.putU64(b, off + 8, fileInfoOffset);
        Le.putU64(b, off + 16, xorbInfoOffset);
        Le.putU64(b, off + 24, fileLookupOffset);
        Le.putU64(b, off + 32, fileLookupNumEntry);
        Le.putU64(b, off + 40, xorbLookupOffset);
        Le.putU64(b, off + 48, xorbLookupNumEntry);
        Le.putU64(b, off + 56, chunkLookupOffset);
        Le.putU64(b, off + 64, chunkLookupNumEntry);
        chunkHashHmacKey.writeTo(b, off + 72);
        Le.putU64(b, off + 104, shardCreationTimestamp);
        Le.putU64(b, off + 112, shardKeyExpiry);
        for (int i = 120; i < 168; i += 8) {
            Le.putU64(b, off + i, 0);
        }
        Le.putU64(b, off + 168, storedBytesOnDisk);
        Le.putU64(b, off + 176, materializedBytes);
        Le.putU64(b, off + 184, storedBytes);
        Le.putU64(b, off + 192, footerOffset);
    }
}
