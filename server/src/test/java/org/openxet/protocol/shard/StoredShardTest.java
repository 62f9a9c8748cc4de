package org.openxet.protocol.shard;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.openxet.protocol.MerkleHash;

/** The stored form (§4.4–4.7): footer, three lookup tables, exact offsets and totals. */
class StoredShardTest {
    private static final long NOW = 1_800_000_000L;

    static List<String> scenarios() {
        return Vectors.scenarios();
    }

    /** Every file and xorb of every vector in one shard: several entries per table, duplicates included. */
    static Shard everything() {
        List<FileEntry> files = new ArrayList<>();
        List<XorbBlock> xorbs = new ArrayList<>();
        for (String s : Vectors.scenarios()) {
            Shard shard = Vectors.parsed(s);
            files.addAll(shard.files());
            xorbs.addAll(shard.xorbs());
        }
        return new Shard(ShardHeader.withoutFooter(), files, xorbs, null);
    }

    @ParameterizedTest
    @MethodSource("scenarios")
    void storedShardParsesBackToTheSameFilesAndXorbs(String scenario) throws Exception {
        Shard client = Vectors.parsed(scenario);
        Shard stored = ShardWriter.stored(client, NOW, -1L);
        byte[] bytes = ShardWriter.write(stored);
        Shard back = ShardParser.parse(bytes);
        assertEquals(stored, back);
        assertEquals(client.files(), back.files());
        assertEquals(client.xorbs(), back.xorbs());
        assertEquals(ShardHeader.withFooter(), back.header());
        assertArrayEquals(bytes, ShardWriter.write(back), "a stored shard re-serializes byte for byte");
    }

    @Test
    void storedFooterHasExactOffsetsTotalsTimestampAndExpiry() throws Exception {
        Shard client = Vectors.parsed("single-r3m");
        byte[] bytes = ShardWriter.writeStored(client, NOW, NOW + 3600);
        ShardFooter f = ShardParser.parse(bytes).footer();
        assertEquals(1, client.files().getFirst().terms().size(), "one term covers the whole xorb");
        long xorbStart = 48 + 48L * (1 + 1 * 2) + 48;
        long xorbEnd = xorbStart + 48L * (1 + 57) + 48;
        assertEquals(1, f.version());
        assertEquals(48, f.fileInfoOffset());
        assertEquals(xorbStart, f.xorbInfoOffset());
        assertEquals(xorbEnd, f.fileLookupOffset());
        assertEquals(1, f.fileLookupNumEntry());
        assertEquals(xorbEnd + 12, f.xorbLookupOffset());
        assertEquals(1, f.xorbLookupNumEntry());
        assertEquals(xorbEnd + 24, f.chunkLookupOffset());
        assertEquals(57, f.chunkLookupNumEntry());
        assertEquals(xorbEnd + 24 + 57 * 16, f.footerOffset());
        assertEquals(bytes.length - 200, f.footerOffset());
        assertEquals(MerkleHash.ZERO, f.chunkHashHmacKey());
        assertEquals(NOW, f.shardCreationTimestamp());
        assertEquals(NOW + 3600, f.shardKeyExpiry());
        assertEquals(3_146_184, f.storedBytesOnDisk(), "Σ num_bytes_on_disk = the xorb body the JS client sent");
        assertEquals(3_145_728, f.materializedBytes(), "Σ term bytes = file size");
        assertEquals(3_145_728, f.storedBytes(), "Σ num_bytes_in_xorb");
        assertEquals(200, Le.u64(bytes, 40), "header footer_size");
    }

    @Test
    void lookupTablesAreSortedAndPointAtTheirRecords() throws Exception {
        Shard all = everything();
        byte[] bytes = ShardWriter.writeStored(all, NOW, -1L);
        ShardFooter f = ShardParser.parse(bytes).footer();
        assertEquals(all.files().size(), f.fileLookupNumEntry());
        assertEquals(all.xorbs().size(), f.xorbLookupNumEntry());
        assertEquals(all.totalChunks(), f.chunkLookupNumEntry());

        // Record positions computed independently of LookupTables, by walking the parsed structure.
        Set<Long> fileHeaders = new HashSet<>();
        long rec = 0;
        for (FileEntry fe : all.files()) {
            fileHeaders.add(rec);
            rec += 1 + fe.terms().size() * (fe.hasVerification() ? 2L : 1L) + (fe.hasMetadataExt() ? 1 : 0);
        }
        Set<Long> xorbHeaders = new HashSet<>();
        rec = 0;
        for (XorbBlock x : all.xorbs()) {
            xorbHeaders.add(rec);
            rec += 1 + x.chunks().size();
        }

        Set<Long> seenFiles = new HashSet<>();
        long prev = 0;
        for (int i = 0; i < f.fileLookupNumEntry(); i++) {
            int p = (int) f.fileLookupOffset() + 12 * i;
            long key = Le.u64(bytes, p);
            long index = Integer.toUnsignedLong(Le.u32(bytes, p + 8));
            assertTrue(i == 0 || Long.compareUnsigned(prev, key) <= 0, "file lookup sorted by word0, unsigned");
            prev = key;
            assertTrue(fileHeaders.contains(index), "file lookup points at a file header record");
            assertEquals(key, Le.u64(bytes, (int) (f.fileInfoOffset() + 48 * index)));
            seenFiles.add(index);
        }
        assertEquals(fileHeaders, seenFiles);

        Set<Long> seenXorbs = new HashSet<>();
        for (int i = 0; i < f.xorbLookupNumEntry(); i++) {
            int p = (int) f.xorbLookupOffset() + 12 * i;
            long key = Le.u64(bytes, p);
            long index = Integer.toUnsignedLong(Le.u32(bytes, p + 8));
            assertTrue(i == 0 || Long.compareUnsigned(prev, key) <= 0, "xorb lookup sorted by word0, unsigned");
            prev = key;
            assertTrue(xorbHeaders.contains(index), "xorb lookup points at a xorb header record");
            assertEquals(key, Le.u64(bytes, (int) (f.xorbInfoOffset() + 48 * index)));
            seenXorbs.add(index);
        }
        assertEquals(xorbHeaders, seenXorbs);

        Set<Long> seenChunks = new HashSet<>();
        for (int i = 0; i < f.chunkLookupNumEntry(); i++) {
            int p = (int) f.chunkLookupOffset() + 16 * i;
            long key = Le.u64(bytes, p);
            long xorb = Integer.toUnsignedLong(Le.u32(bytes, p + 8));
            long offset = Integer.toUnsignedLong(Le.u32(bytes, p + 12));
            assertTrue(i == 0 || Long.compareUnsigned(prev, key) <= 0, "chunk lookup sorted by word0, unsigned");
            prev = key;
            assertTrue(xorbHeaders.contains(xorb), "chunk lookup names a xorb header record");
            long numEntries = Integer.toUnsignedLong(Le.u32(bytes, (int) (f.xorbInfoOffset() + 48 * xorb + 36)));
            assertTrue(offset < numEntries, "chunk offset inside its xorb");
            assertEquals(key, Le.u64(bytes, (int) (f.xorbInfoOffset() + 48 * (xorb + 1 + offset))));
            seenChunks.add(xorb << 32 | offset);
        }
        assertEquals(all.totalChunks(), seenChunks.size(), "every chunk is listed once");
    }

    @Test
    void shardAsHfXetUploadsItHasNoFooterAndRoundTrips() throws Exception {
        Shard noFooter = everything();
        byte[] bytes = ShardWriter.write(noFooter);
        assertEquals(noFooter.xorbSectionEnd(), bytes.length);
        assertEquals(0, Le.u64(bytes, 40));
        Shard back = ShardParser.parse(bytes);
        assertNull(back.footer());
        assertEquals(noFooter, back);
        assertArrayEquals(bytes, ShardWriter.write(back));
    }

    @Test
    void lookupTableWithTwoEntriesSwappedIsRejected() {
        byte[] bytes = ShardWriter.writeStored(everything(), NOW, -1L);
        ShardFooter f = ShardWriter.stored(everything(), NOW, -1L).footer();
        int p = (int) f.chunkLookupOffset();
        byte[] first = java.util.Arrays.copyOfRange(bytes, p, p + 16);
        System.arraycopy(bytes, p + 16, bytes, p, 16);
        System.arraycopy(first, 0, bytes, p + 16, 16);
        assertThrows(ShardFormatException.class, () -> ShardParser.parse(bytes));
    }

    @Test
    void lookupTablePointingAtTheWrongRecordIsRejected() {
        Shard stored = ShardWriter.stored(everything(), NOW, -1L);
        byte[] bytes = ShardWriter.write(stored);
        int p = (int) stored.footer().xorbLookupOffset();
        Le.putU32(bytes, p + 8, Le.u32(bytes, p + 8) + 1);
        assertThrows(ShardFormatException.class, () -> ShardParser.parse(bytes));
        byte[] again = ShardWriter.write(stored);
        int q = (int) stored.footer().fileLookupOffset();
        Le.putU32(again, q + 8, Le.u32(again, q + 8) + 1);
        assertThrows(ShardFormatException.class, () -> ShardParser.parse(again));
    }

    @Test
    void xetCoreLayoutWithEmptyTablesAtTheEndOfTheXorbSectionIsAccepted() throws Exception {
        // serialize_xorb_subset_with_expiry: counts 0, every lookup offset = footer offset (§4.8 step 4).
        Shard client = Vectors.parsed("single-r1m");
        long end = client.xorbSectionEnd();
        ShardFooter f = new ShardFooter(1, 48, client.xorbInfoOffset(), end, 0, end, 0, end, 0, MerkleHash.ZERO,
                NOW, 0, 0, 0, 0, end);
        Shard shard = new Shard(ShardHeader.withFooter(), client.files(), client.xorbs(), f);
        assertEquals(shard, ShardParser.parse(ShardWriter.write(shard)));
    }

    @Test
    void writerRefusesAFooterThatDoesNotDescribeTheShard() {
        Shard stored = ShardWriter.stored(Vectors.parsed("single-r1m"), NOW, -1L);
        ShardFooter f = stored.footer();
        ShardFooter wrong = new ShardFooter(f.version(), f.fileInfoOffset(), f.xorbInfoOffset() + 48,
                f.fileLookupOffset(), f.fileLookupNumEntry(), f.xorbLookupOffset(), f.xorbLookupNumEntry(),
                f.chunkLookupOffset(), f.chunkLookupNumEntry(), f.chunkHashHmacKey(), f.shardCreationTimestamp(),
                f.shardKeyExpiry(), f.storedBytesOnDisk(), f.materializedBytes(), f.storedBytes(), f.footerOffset());
        Shard bad = new Shard(stored.header(), stored.files(), stored.xorbs(), wrong);
        assertThrows(IllegalArgumentException.class, () -> ShardWriter.write(bad));
    }

    @Test
    void emptyShardStoresWithEmptyTables() throws Exception {
        Shard empty = new Shard(ShardHeader.withoutFooter(), List.of(), List.of(), null);
        byte[] bytes = ShardWriter.writeStored(empty, NOW, -1L);
        assertEquals(48 + 48 + 48 + 200, bytes.length);
        ShardFooter f = ShardParser.parse(bytes).footer();
        assertEquals(144, f.fileLookupOffset());
        assertEquals(144, f.footerOffset());
    }
}
