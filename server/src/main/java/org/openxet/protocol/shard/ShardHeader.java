package org.openxet.protocol.shard;

import java.util.Arrays;

/**
 * The 48-byte shard header (§4.1): a fixed tag, the version and the size of the footer that ends the body. The tag
 * is not a field because a header with any other tag is not a shard.
 *
 * @param version    u64, 2 for every shard this code accepts
 * @param footerSize u64, 0 for an hf_xet upload (no footer), 200 for JS-client uploads, stored and dedup shards
 */
public record ShardHeader(long version, long footerSize) {
    public static final int SIZE = 48;
    public static final long VERSION = 2;

    /** {@code HFRepoMetaData}, a 0 byte, then 17 fixed bytes (§4.1, {@code MDB_SHARD_HEADER_TAG}). */
    private static final byte[] TAG = {
        'H', 'F', 'R', 'e', 'p', 'o', 'M', 'e', 't', 'a', 'D', 'a', 't', 'a', 0, 85, 105, 103, 69, 106, 123,
        (byte) 129, 87, (byte) 131, (byte) 165, (byte) 189, (byte) 217, 92, (byte) 205, (byte) 209, 74, (byte) 169,
    };

    /** Header of a shard as hf_xet uploads it: no footer (§4.6). */
    public static ShardHeader withoutFooter() {
        return new ShardHeader(VERSION, 0);
    }

    /** Header of a shard that ends in the 200-byte footer (§4.5). */
    public static ShardHeader withFooter() {
        return new ShardHeader(VERSION, ShardFooter.SIZE);
    }

    public boolean hasFooter() {
        return footerSize != 0;
    }

    static boolean tagMatches(byte[] body, int offset) {
        return Arrays.equals(body, offset, offset + TAG.length, TAG, 0, TAG.length);
    }

    void writeTo(byte[] out, int offset) {
        System.arraycopy(TAG, 0, out, offset, TAG.length);
        Le.putU64(out, offset + 32, version);
        Le.putU64(out, offset + 40, footerSize);
    }
}
