package org.openxet.protocol.shard;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigInteger;
import org.openxet.protocol.MerkleHash;

/**
 * One-line JSON of a parsed shard, for {@code openxet shard-info FILE}. Field names follow §4 (snake_case, xet-core's
 * names); hashes are in the protocol hex form (§1.1); u32 and u64 fields are printed unsigned, so an expiry of
 * u64::MAX reads 18446744073709551615, not -1.
 */
public final class ShardJson {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private ShardJson() {
    }

    public static String toJson(Shard shard) {
        try {
            return MAPPER.writeValueAsString(toTree(shard));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree always serializes", e);
        }
    }

    public static ObjectNode toTree(Shard shard) {
        ObjectNode root = MAPPER.createObjectNode();
        ObjectNode header = root.putObject("header");
        u64(header, "version", shard.header().version());
        u64(header, "footer_size", shard.header().footerSize());
        ShardFooter f = shard.footer();
        if (f == null) {
            root.putNull("footer");
        } else {
            ObjectNode footer = root.putObject("footer");
            u64(footer, "version", f.version());
            u64(footer, "file_info_offset", f.fileInfoOffset());
            u64(footer, "xorb_info_offset", f.xorbInfoOffset());
            u64(footer, "file_lookup_offset", f.fileLookupOffset());
            u64(footer, "file_lookup_num_entry", f.fileLookupNumEntry());
            u64(footer, "xorb_lookup_offset", f.xorbLookupOffset());
            u64(footer, "xorb_lookup_num_entry", f.xorbLookupNumEntry());
            u64(footer, "chunk_lookup_offset", f.chunkLookupOffset());
            u64(footer, "chunk_lookup_num_entry", f.chunkLookupNumEntry());
            footer.put("chunk_hash_hmac_key", f.chunkHashHmacKey().hex());
            u64(footer, "shard_creation_timestamp", f.shardCreationTimestamp());
            u64(footer, "shard_key_expiry", f.shardKeyExpiry());
            u64(footer, "stored_bytes_on_disk", f.storedBytesOnDisk());
            u64(footer, "materialized_bytes", f.materializedBytes());
            u64(footer, "stored_bytes", f.storedBytes());
            u64(footer, "footer_offset", f.footerOffset());
        }
        ArrayNode files = root.putArray("files");
        for (FileEntry fe : shard.files()) {
            ObjectNode file = files.addObject();
            file.put("hash", fe.fileHash().hex());
            file.put("flags", Integer.toUnsignedLong(fe.flags()));
            ArrayNode terms = file.putArray("terms");
            for (FileTerm t : fe.terms()) {
                ObjectNode term = terms.addObject();
                term.put("xorb_hash", t.xorbHash().hex());
                term.put("xorb_flags", Integer.toUnsignedLong(t.xorbFlags()));
                term.put("unpacked_bytes", t.unpackedBytesUnsigned());
                term.put("chunk_start", t.chunkStartUnsigned());
                term.put("chunk_end", t.chunkEndUnsigned());
            }
            ArrayNode verification = file.putArray("verification");
            for (MerkleHash v : fe.verificationHashes()) {
                verification.add(v.hex());
            }
            file.put("sha256", fe.sha256() == null ? null : fe.sha256().hex());
        }
        ArrayNode xorbs = root.putArray("xorbs");
        for (XorbBlock x : shard.xorbs()) {
            ObjectNode xorb = xorbs.addObject();
            xorb.put("hash", x.xorbHash().hex());
            xorb.put("flags", Integer.toUnsignedLong(x.flags()));
            xorb.put("num_bytes_in_xorb", x.numBytesInXorbUnsigned());
            xorb.put("num_bytes_on_disk", x.numBytesOnDiskUnsigned());
            ArrayNode chunks = xorb.putArray("chunks");
            for (XorbChunkEntry c : x.chunks()) {
                ObjectNode chunk = chunks.addObject();
                chunk.put("hash", c.chunkHash().hex());
                chunk.put("byte_range_start", c.byteRangeStartUnsigned());
                chunk.put("unpacked_bytes", c.unpackedBytesUnsigned());
                chunk.put("flags", Integer.toUnsignedLong(c.flags()));
            }
        }
        return root;
    }

    private static void u64(ObjectNode node, String name, long value) {
        if (value >= 0) {
            node.put(name, value);
        } else {
            node.put(name, new BigInteger(Long.toUnsignedString(value)));
        }
    }
}
