package org.openxet.protocol.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openxet.protocol.FormatException;
import org.openxet.protocol.MerkleHash;

/**
 * Untrusted bodies (§4.9): a generated corpus of broken shards. Each must give a {@link FormatException} (or, for a
 * harmless change such as a flipped hash bit, a successful parse), never another exception, an OOM or a hang.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MalformedShardTest {
    private static final long NOW = 1_800_000_000L;

    /** Every vector in its three shapes: as the JS client sent it, as hf_xet would (no footer), as we store it. */
    private static List<byte[]> corpusBases() {
        List<byte[]> bases = new ArrayList<>();
        for (String s : Vectors.scenarios()) {
            Shard shard = Vectors.parsed(s);
            bases.add(Vectors.shard(s));
            bases.add(ShardWriter.write(new Shard(ShardHeader.withoutFooter(), shard.files(), shard.xorbs(), null)));
            bases.add(ShardWriter.writeStored(shard, NOW, -1L));
        }
        return bases;
    }

    /** Parses; returns the shard or null on a FormatException; fails the test on anything else. */
    private static Shard parseOrReject(byte[] body, String what) {
        try {
            return ShardParser.parse(body);
        } catch (FormatException e) {
            return null;
        } catch (Throwable t) {
            throw new AssertionError(what + ": " + t, t);
        }
    }

    @Test
    void everyTruncationIsRejected() {
        for (byte[] base : corpusBases()) {
            int step = base.length <= 1024 ? 1 : 8;
            for (int len = 0; len < base.length; len += step) {
                byte[] cut = Arrays.copyOf(base, len);
                if (parseOrReject(cut, "truncated to " + len) != null) {
                    fail("a shard of " + base.length + " bytes cut to " + len + " parsed");
                }
            }
        }
    }

    @Test
    void bitFlipsAreRejectedOrParseToAShardThatWritesBackConsistently() {
        int parsed = 0;
        int rejected = 0;
        for (byte[] base : corpusBases()) {
            boolean small = base.length <= 1024;
            for (int i = 0; i < base.length; i++) {
                for (int bit = 0; bit < 8; bit++) {
                    if (!small && bit != i % 8) {
                        continue; // large bodies: one bit per byte, rotating
                    }
                    byte[] flipped = base.clone();
                    flipped[i] ^= (byte) (1 << bit);
                    Shard s = parseOrReject(flipped, "bit " + bit + " of byte " + i);
                    if (s == null) {
                        rejected++;
                        continue;
                    }
                    parsed++;
                    // Whatever we accept, we can write and read back to the same structure.
                    byte[] again = ShardWriter.write(s);
                    assertEquals(s, parseOrReject(again, "rewrite after flip at " + i));
                }
            }
        }
        assertTrue(parsed > 0, "hash bits are harmless flips");
        assertTrue(rejected > 0, "structural bits are not");
    }

    @Test
    void absurdEntryCountsAreRejected() {
        for (byte[] base : corpusBases()) {
            Shard shard = parseOrReject(base, "base");
            if (!shard.files().isEmpty()) {
                byte[] b = base.clone();
                Le.putU32(b, 48 + 36, -1);
                assertThrows(ShardFormatException.class, () -> ShardParser.parse(b), "file num_entries 2^32-1");
            }
            int xorbHeader = (int) shard.xorbInfoOffset();
            if (!shard.xorbs().isEmpty()) {
                byte[] b = base.clone();
                Le.putU32(b, xorbHeader + 36, -1);
                assertThrows(ShardFormatException.class, () -> ShardParser.parse(b), "xorb num_entries 2^32-1");
                byte[] c = base.clone();
                Le.putU32(c, xorbHeader + 36, shard.xorbs().getFirst().chunks().size() + 1);
                assertThrows(ShardFormatException.class, () -> ShardParser.parse(c), "one chunk too many");
            }
        }
    }

    @Test
    void wrongTagVersionOrFooterSizeIsRejected() {
        byte[] base = Vectors.shard("single-r1m");
        byte[] tag = base.clone();
        tag[0] = 'h';
        assertThrows(ShardFormatException.class, () -> ShardParser.parse(tag));
        for (long v : new long[] {0, 1, 3, -1}) {
            byte[] b = base.clone();
            Le.putU64(b, 32, v);
            assertThrows(ShardFormatException.class, () -> ShardParser.parse(b), "header version " + v);
        }
        for (long size : new long[] {1, 48, 199, 201, 1L << 40, -1}) {
            byte[] b = base.clone();
            Le.putU64(b, 40, size);
            assertThrows(ShardFormatException.class, () -> ShardParser.parse(b), "footer_size " + size);
        }
        for (long v : new long[] {0, 2, -1}) {
            byte[] b = base.clone();
            Le.putU64(b, b.length - 200, v);
            assertThrows(ShardFormatException.class, () -> ShardParser.parse(b), "footer version " + v);
        }
        assertThrows(ShardFormatException.class, () -> ShardParser.parse(new byte[0]));
    }

    @Test
    void missingBookendsAreRejected() {
        Shard shard = Vectors.parsed("single-r131073");
        byte[] noFooter = ShardWriter.write(new Shard(ShardHeader.withoutFooter(), shard.files(), shard.xorbs(), null));
        int fileBookend = (int) shard.xorbInfoOffset() - 48;
        byte[] withoutFileBookend = new byte[noFooter.length - 48];
        System.arraycopy(noFooter, 0, withoutFileBookend, 0, fileBookend);
        System.arraycopy(noFooter, fileBookend + 48, withoutFileBookend, fileBookend, noFooter.length - fileBookend - 48);
        assertThrows(ShardFormatException.class, () -> ShardParser.parse(withoutFileBookend));
        byte[] withoutXorbBookend = Arrays.copyOf(noFooter, noFooter.length - 48);
        assertThrows(ShardFormatException.class, () -> ShardParser.parse(withoutXorbBookend));
        byte[] bookendNotMarker = noFooter.clone();
        bookendNotMarker[noFooter.length - 48] = 0;
        assertThrows(ShardFormatException.class, () -> ShardParser.parse(bookendNotMarker));
    }

    @Test
    void footerLiesAreRejected() {
        byte[] client = Vectors.shard("single-r1m");
        byte[] stored = ShardWriter.writeStored(Vectors.parsed("single-r1m"), NOW, -1L);
        for (byte[] base : List.of(client, stored)) {
            int footer = base.length - 200;
            // Fields at footer offsets 8..64 (section and lookup offsets/counts) and 192 (footer_offset).
            for (int field : new int[] {8, 16, 24, 32, 40, 48, 56, 64, 192}) {
                long original = Le.u64(base, footer + field);
                for (long lie : new long[] {original + 1, original - 1, original + 48, base.length, 1L << 62,
                        Long.MAX_VALUE, -1L, -12L, -16L, 1L << 59}) {
                    if (lie == original) {
                        continue;
                    }
                    byte[] b = base.clone();
                    Le.putU64(b, footer + field, lie);
                    assertThrows(ShardFormatException.class, () -> ShardParser.parse(b),
                            "footer field at " + field + " = " + Long.toUnsignedString(lie));
                }
            }
        }
    }

    @Test
    void bytesNobodyAnnouncedAreRejected() {
        Shard shard = Vectors.parsed("single-r1m");
        byte[] noFooter = ShardWriter.write(new Shard(ShardHeader.withoutFooter(), shard.files(), shard.xorbs(), null));
        assertThrows(ShardFormatException.class, () -> ShardParser.parse(Arrays.copyOf(noFooter, noFooter.length + 1)));
        assertThrows(ShardFormatException.class, () -> ShardParser.parse(Arrays.copyOf(noFooter, noFooter.length + 48)));

        // JS-client shape with 48 extra bytes between the xorb bookend and the footer, footer_offset adjusted.
        byte[] client = Vectors.shard("single-r1m");
        int footer = client.length - 200;
        byte[] padded = new byte[client.length + 48];
        System.arraycopy(client, 0, padded, 0, footer);
        System.arraycopy(client, footer, padded, footer + 48, 200);
        Le.putU64(padded, padded.length - 8, footer + 48);
        assertThrows(ShardFormatException.class, () -> ShardParser.parse(padded));
    }

    @Test
    void filesThatDisagreeOnVerificationAreRejected() {
        FileEntry with = Vectors.parsed("single-r1m").files().getFirst();
        FileEntry without = new FileEntry(with.fileHash(), 0, with.terms(), List.of(), null);
        Shard mixed = new Shard(ShardHeader.withoutFooter(), List.of(with, without), List.of(), null);
        assertThrows(ShardFormatException.class, () -> ShardParser.parse(ShardWriter.write(mixed)));
        Shard none = new Shard(ShardHeader.withoutFooter(), List.of(without, without), List.of(), null);
        assertEquals(none, parseOrReject(ShardWriter.write(none), "no file with verification"));
    }

    @Test
    void unknownFlagBitsAreKept() throws Exception {
        FileEntry f = Vectors.parsed("single-r1m").files().getFirst();
        XorbBlock x = Vectors.parsed("single-r1m").xorbs().getFirst();
        FileEntry oddFile = new FileEntry(f.fileHash(), f.flags() | 0x1, f.terms(), f.verificationHashes(), null);
        XorbChunkEntry c = x.chunks().getFirst();
        XorbBlock oddXorb = new XorbBlock(x.xorbHash(), 0x10, x.numBytesInXorb(), x.numBytesOnDisk(),
                List.of(new XorbChunkEntry(c.chunkHash(), 0, c.unpackedBytes(), 0x40000001)));
        Shard shard = new Shard(ShardHeader.withoutFooter(), List.of(oddFile), List.of(oddXorb), null);
        assertEquals(shard, ShardParser.parse(ShardWriter.write(shard)));
    }

    @Test
    void aOneKilobyteBodyClaimingFourBillionEntriesAllocatesAlmostNothing() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        byte[] fileClaim = hostile(48 + 36);
        byte[] xorbClaim = hostile(48 + 48 + 36); // file section = bookend only, then a xorb header
        MerkleHash.MARKER.writeTo(xorbClaim, 48);
        for (byte[] body : List.of(fileClaim, xorbClaim)) {
            for (int warm = 0; warm < 50; warm++) {
                assertThrows(ShardFormatException.class, () -> ShardParser.parse(body));
            }
            long tid = Thread.currentThread().threadId();
            long before = mx.getThreadAllocatedBytes(tid);
            try {
                ShardParser.parse(body);
                fail("parsed");
            } catch (ShardFormatException expected) {
                // the point is what it cost
            }
            long allocated = mx.getThreadAllocatedBytes(tid) - before;
            assertTrue(allocated < 64 * 1024, "allocated " + allocated + " bytes for a 1 KB body");
        }
    }

    /** 1 KB: a valid header (footer_size 0), zeros, and 2^32−1 written as num_entries at {@code countAt}. */
    private static byte[] hostile(int countAt) {
        byte[] body = ShardWriter.write(new Shard(ShardHeader.withoutFooter(), List.of(), List.of(), null));
        body = Arrays.copyOf(body, 1024);
        Arrays.fill(body, 48, 1024, (byte) 0);
        Le.putU32(body, countAt, -1);
        return body;
    }
}
