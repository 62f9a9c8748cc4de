package org.openxet.storage;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openxet.testing.LargestAllocation;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.file.NoSuchFileException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every {@link Bucket} does, as the services rely on it, run against each implementation: {@link LocalBucket}
 * on a temp dir and {@link S3Bucket} on a real S3-compatible server over loopback.
 */
abstract class BucketContractTest {
    static final String XORB_A = "xorbs/default/" + "ab".repeat(32);
    static final String XORB_B = "xorbs/default/" + "cd".repeat(32);
    static final String SHARD = "shards/" + "ef".repeat(32);

    Bucket bucket;

    /** A fresh, empty bucket for one test. */
    abstract Bucket open() throws Exception;

    @BeforeEach
    void openBucket() throws Exception {
        bucket = open();
    }

    @AfterEach
    void closeBucket() throws Exception {
        bucket.close();
    }

    static byte[] random(int length, long seed) {
        byte[] b = new byte[length];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    static byte[] readAll(InputStream in) throws IOException {
        try (in) {
            return in.readAllBytes();
        }
    }

    @Test
    void aPutOfSeveralPartsStoresTheirConcatenationAndLeavesThePartsAlone() throws Exception {
        byte[] chunks = random(10_000, 1);
        byte[] footer = random(300, 2);
        ByteBuffer first = ByteBuffer.wrap(chunks, 0, 6_000);
        ByteBuffer second = ByteBuffer.wrap(chunks, 6_000, 4_000);
        ByteBuffer empty = ByteBuffer.allocate(0);
        ByteBuffer last = ByteBuffer.allocateDirect(footer.length).put(footer).flip();

        bucket.put(XORB_A, first, empty, second, last);

        byte[] expected = new byte[10_300];
        System.arraycopy(chunks, 0, expected, 0, 10_000);
        System.arraycopy(footer, 0, expected, 10_000, 300);
        assertEquals(Optional.of(10_300L), bucket.size(XORB_A));
        assertArrayEquals(expected, bucket.read(XORB_A));
        assertEquals(0, first.position());
        assertEquals(6_000, second.position());
        assertEquals(0, last.position());
    }

    @Test
    void putIfAbsentCreatesOnceAndNeverReplacesAnotherWritersObject() throws Exception {
        byte[] first = random(4_000, 11);
        byte[] second = random(5_000, 12);
        assertTrue(bucket.putIfAbsent(XORB_A, ByteBuffer.wrap(first, 0, 1_000), ByteBuffer.wrap(first, 1_000, 3_000)));
        assertFalse(bucket.putIfAbsent(XORB_A, ByteBuffer.wrap(second)));
        assertArrayEquals(first, bucket.read(XORB_A));
        assertEquals(Optional.of((long) first.length), bucket.size(XORB_A), "the size known is the stored object's");
    }

    @Test
    void rangedReadsReturnExactlyTheirBytesAtEveryEdge() throws Exception {
        byte[] data = random(5_000, 3);
        bucket.put(XORB_A, data);
        long[][] ranges = {{0, 1}, {0, 5_000}, {4_999, 1}, {1, 4_999}, {2_500, 100}, {5_000, 0}, {0, 0}};
        for (long[] r : ranges) {
            byte[] got = readAll(bucket.openRange(XORB_A, r[0], r[1]));
            assertArrayEquals(Arrays.copyOfRange(data, (int) r[0], (int) (r[0] + r[1])), got, r[0] + "+" + r[1]);
        }
        // A range past the end is an error, not a short read: the fetch route has promised a Content-Length.
        for (long[] r : new long[][]{{4_999, 2}, {5_000, 1}, {6_000, 10}, {0, 5_001}}) {
            IOException e = assertThrows(IOException.class, () -> readAll(bucket.openRange(XORB_A, r[0], r[1])));
            assertFalse(e instanceof NoSuchFileException, r[0] + "+" + r[1] + ": " + e);
        }
    }

    /** Stores {@code XORB_A}: three mapping thresholds and a few bytes of random data, returned. */
    private byte[] putPastTheMappingThreshold(int seed) throws IOException {
        byte[] data = random(3 * (int) LocalBucket.MAP_FROM_BYTES + 17, seed);
        bucket.put(XORB_A, data);
        return data;
    }

    @Test
    void largeRangesReturnExactlyTheirBytesAtEveryEdge() throws Exception {
        // Ranges from this length on are mapped by the local bucket rather than read: their edges are checked again.
        int m = (int) LocalBucket.MAP_FROM_BYTES;
        byte[] data = putPastTheMappingThreshold(5);
        int size = data.length;
        long[][] ranges = {{0, size}, {1, size - 1}, {size - m, m}, {12_345, m + 500_000}, {0, m - 1}, {m, m}};
        for (long[] r : ranges) {
            byte[] got = readAll(bucket.openRange(XORB_A, r[0], r[1]));
            assertArrayEquals(Arrays.copyOfRange(data, (int) r[0], (int) (r[0] + r[1])), got, r[0] + "+" + r[1]);
        }
        int tail = m + 1_000;
        try (InputStream in = bucket.openRange(XORB_A, size - tail, tail)) {
            assertEquals(data[size - tail] & 0xFF, in.read());
            assertEquals(0, in.read(new byte[8], 0, 0));
            assertArrayEquals(Arrays.copyOfRange(data, size - tail + 1, size), in.readAllBytes());
            assertEquals(-1, in.read());
            assertEquals(-1, in.read(new byte[8], 0, 8));
        }
        for (long[] r : new long[][]{{1, size}, {size - m, m + 1}}) {
            IOException e = assertThrows(IOException.class, () -> readAll(bucket.openRange(XORB_A, r[0], r[1])));
            assertFalse(e instanceof NoSuchFileException, r[0] + "+" + r[1] + ": " + e);
        }
    }

    /** An output stream that is also a channel, as the fetch route's body on the connection's channel is. */
    private static final class ChannelSink extends ByteArrayOutputStream implements WritableByteChannel {
        int channelWrites;

        @Override
        public int write(ByteBuffer src) {
            channelWrites++;
            int n = src.remaining();
            byte[] b = new byte[n];
            src.get(b);
            write(b, 0, n);
            return n;
        }

        @Override
        public boolean isOpen() {
            return true;
        }
    }

    @Test
    void rangesTransferToAChannelExactlyTheirBytes() throws Exception {
        // What the fetch route does with a body on the connection's channel: transferTo, after a byte read first.
        int m = (int) LocalBucket.MAP_FROM_BYTES;
        byte[] data = putPastTheMappingThreshold(6);
        int size = data.length;
        for (long[] r : new long[][]{{0, size}, {12_345, m + 500_000}, {7, 300_000}, {size - 1, 1}}) {
            ChannelSink sink = new ChannelSink();
            try (InputStream in = bucket.openRange(XORB_A, r[0], r[1])) {
                sink.write(in.read());
                assertEquals(r[1] - 1, in.transferTo(sink));
                assertEquals(-1, in.read());
            }
            assertArrayEquals(Arrays.copyOfRange(data, (int) r[0], (int) (r[0] + r[1])), sink.toByteArray(), r[0] + "+" + r[1]);
            if (bucket instanceof LocalBucket && r[1] >= m) {
                assertTrue(sink.channelWrites > 0, "a mapped range goes to the channel as it is");
            }
        }
    }

    @Test
    void aRangeClosedEarlyLeavesTheBucketUsable() throws Exception {
        byte[] data = random(3 << 20, 4);
        bucket.put(XORB_A, data);
        for (int i = 0; i < 4; i++) {
            try (InputStream in = bucket.openRange(XORB_A, 0, data.length)) {
                assertEquals(data[0] & 0xFF, in.read());
            }
        }
        assertArrayEquals(Arrays.copyOfRange(data, 100, 200), readAll(bucket.openRange(XORB_A, 100, 100)));
    }

    @Test
    void anAbsentObjectHasNoSizeAndReadingItIsNoSuchFile() throws Exception {
        assertEquals(Optional.empty(), bucket.size(XORB_A));
        assertInstanceOf(NoSuchFileException.class, assertThrows(IOException.class, () -> bucket.read(XORB_A)));
        assertInstanceOf(NoSuchFileException.class,
                assertThrows(IOException.class, () -> readAll(bucket.openRange(XORB_A, 0, 10))));
        assertEquals(List.of(), bucket.list("xorbs"));
        bucket.delete(XORB_A);
    }

    @Test
    void deleteRemovesAnObjectAndDeletingAgainIsFine() throws Exception {
        bucket.put(XORB_A, random(100, 5));
        bucket.put(XORB_B, random(100, 6));
        bucket.delete(XORB_A);
        bucket.delete(XORB_A);
        assertEquals(Optional.empty(), bucket.size(XORB_A));
        assertEquals(List.of(XORB_B), bucket.list("xorbs"));
    }

    @Test
    void listTakesADirectoryPrefixAndReturnsWholeKeys() throws Exception {
        String other = "xorbsextra/" + "12".repeat(32);
        for (String key : List.of(XORB_A, XORB_B, SHARD, other)) {
            bucket.put(key, key.getBytes());
        }
        Set<String> xorbs = Set.of(XORB_A, XORB_B);
        assertEquals(xorbs, new HashSet<>(bucket.list("xorbs")));
        assertEquals(xorbs, new HashSet<>(bucket.list("xorbs/default")));
        assertEquals(xorbs, new HashSet<>(bucket.list("xorbs/default/")));
        assertEquals(List.of(SHARD), bucket.list("shards"));
        assertEquals(List.of(), bucket.list("xorbs/def"));
        assertEquals(List.of(), bucket.list("nothing"));
        assertEquals(Set.of(XORB_A, XORB_B, SHARD, other), new HashSet<>(bucket.list("")));
    }

    /** More keys than one page of an S3 listing (1,000): recovery must see every object, not the first page. */
    @Test
    void listReturnsEveryKeyPastOnePageOfAListing() throws Exception {
        Set<String> keys = new HashSet<>();
        for (int i = 0; i < 1_005; i++) {
            String key = "xorbs/default/" + String.format("%064x", i);
            bucket.put(key, new byte[]{(byte) i});
            keys.add(key);
        }
        List<String> listed = bucket.list("xorbs");
        assertEquals(keys.size(), listed.size());
        assertEquals(keys, new HashSet<>(listed));
    }

    @Test
    void overwritingWithIdenticalBytesKeepsOneObject() throws Exception {
        byte[] data = random(1_000, 7);
        bucket.put(XORB_A, data);
        bucket.put(XORB_A, ByteBuffer.wrap(data, 0, 400), ByteBuffer.wrap(data, 400, 600));
        assertArrayEquals(data, bucket.read(XORB_A));
        assertEquals(List.of(XORB_A), bucket.list("xorbs"));
    }

    @Test
    void keysThatEscapeOrHaveEmptySegmentsAreRefused() {
        for (String key : List.of("", "/xorbs/a", "xorbs//a", "xorbs/../a", "xorbs/a/", ".tmp/a")) {
            assertThrows(IllegalArgumentException.class, () -> bucket.put(key, new byte[1]), key);
        }
    }

    /**
     * A 64 MiB xorb goes in from its parts and comes back through a ranged read in slices, and neither direction puts
     * the object (or any large part of it) into an array of its own.
     */
    @Test
    void a64MiBObjectStreamsInAndOutWithoutWholeObjectArrays() throws Exception {
        byte[][] made = new byte[1][];
        // The probe must see a large array when there is one, or the limits below prove nothing.
        assertTrue(LargestAllocation.during(() -> made[0] = random(64 << 20, 8)) >= 64 << 20);
        byte[] data = made[0];
        byte[] footer = random(2_000, 9);
        long size = data.length + footer.length;
        long[] nanos = new long[2];
        long putLargest = LargestAllocation.during(() -> {
            long start = System.nanoTime();
            bucket.put(XORB_A, ByteBuffer.wrap(data), ByteBuffer.wrap(footer));
            nanos[0] = System.nanoTime() - start;
        });
        assertEquals(Optional.of(size), bucket.size(XORB_A));

        byte[] slice = new byte[256 * 1024];
        long getLargest = LargestAllocation.during(() -> {
            long start = System.nanoTime();
            try (InputStream in = bucket.openRange(XORB_A, 0, size)) {
                long at = 0;
                int n;
                while ((n = in.read(slice)) > 0) {
                    for (int i = 0; i < n; i++, at++) {
                        byte want = at < data.length ? data[(int) at] : footer[(int) (at - data.length)];
                        if (slice[i] != want) throw new AssertionError("byte " + at + " differs");
                    }
                }
                assertEquals(size, at);
            }
            nanos[1] = System.nanoTime() - start;
        });
        System.out.printf("%s: 64 MiB put %d ms (largest allocation %d KiB), ranged get %d ms (largest %d KiB)%n",
                getClass().getSimpleName(), nanos[0] / 1_000_000, putLargest >> 10, nanos[1] / 1_000_000, getLargest >> 10);
        assertTrue(putLargest < 4 << 20, "put allocated an array of " + putLargest + " bytes");
        assertTrue(getLargest < 4 << 20, "ranged get allocated an array of " + getLargest + " bytes");
    }
}
