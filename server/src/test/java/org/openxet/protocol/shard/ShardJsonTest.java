package org.openxet.protocol.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The one-line JSON printed by {@code openxet shard-info FILE}. */
class ShardJsonTest {
    @Test
    void modelFlowShardPrintsEverySectionWithProtocolHexHashes() throws Exception {
        Shard shard = Vectors.parsed("model-flow-r131073");
        String json = ShardJson.toJson(shard);
        assertFalse(json.contains("\n"), "one line");
        JsonNode root = Vectors.JSON.readTree(json);
        assertEquals(Set.of("header", "footer", "files", "xorbs"), names(root));
        assertEquals(2, root.get("header").get("version").asLong());
        assertEquals(200, root.get("header").get("footer_size").asLong());
        JsonNode footer = root.get("footer");
        assertEquals(576, footer.get("footer_offset").asLong());
        assertEquals(288, footer.get("xorb_info_offset").asLong());
        assertEquals(16, names(footer).size());

        JsonNode file = root.get("files").get(0);
        assertEquals(Set.of("hash", "flags", "terms", "verification", "sha256"), names(file));
        assertEquals("73e587cf9b3773388d41ac5397905abfd533bf272c5172a7672ca61708e07d38", file.get("hash").asText());
        assertEquals(3221225472L, file.get("flags").asLong(), "u32 printed unsigned");
        assertEquals("515665f2002746eb7e729fdbb678d6374dbe793053f0c4d5736636589a0acb65", file.get("sha256").asText());
        JsonNode term = file.get("terms").get(0);
        assertEquals(Set.of("xorb_hash", "xorb_flags", "unpacked_bytes", "chunk_start", "chunk_end"), names(term));
        assertEquals(131073, term.get("unpacked_bytes").asLong());
        assertEquals(4, term.get("chunk_end").asLong());
        assertEquals("df8c0ad05b72cc7de00cf328f74ba32bea35967724487c6b6057758cbb6c5256",
                file.get("verification").get(0).asText());

        JsonNode xorb = root.get("xorbs").get(0);
        assertEquals(Set.of("hash", "flags", "num_bytes_in_xorb", "num_bytes_on_disk", "chunks"), names(xorb));
        assertEquals(131105, xorb.get("num_bytes_on_disk").asLong());
        JsonNode chunk = xorb.get("chunks").get(2);
        assertEquals(Set.of("hash", "byte_range_start", "unpacked_bytes", "flags"), names(chunk));
        assertEquals(114924, chunk.get("byte_range_start").asLong());
        assertEquals(8128, chunk.get("unpacked_bytes").asLong());
    }

    @Test
    void absentFooterAndSha256PrintAsNullAndNeverExpiryPrintsUnsigned() throws Exception {
        Shard client = Vectors.parsed("single-r8192");
        JsonNode bare = Vectors.JSON.readTree(ShardJson.toJson(
                new Shard(ShardHeader.withoutFooter(), client.files(), client.xorbs(), null)));
        assertTrue(bare.get("footer").isNull());
        assertTrue(bare.get("files").get(0).get("sha256").isNull());
        String stored = ShardJson.toJson(ShardWriter.stored(client, 1, -1L));
        assertTrue(stored.contains("\"shard_key_expiry\":18446744073709551615"), stored);
    }

    private static Set<String> names(JsonNode node) {
        Set<String> s = new TreeSet<>();
        node.fieldNames().forEachRemaining(s::add);
        return s;
    }
}
