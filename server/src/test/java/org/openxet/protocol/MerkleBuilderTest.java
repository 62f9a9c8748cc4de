package org.openxet.protocol;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

class MerkleBuilderTest {
    private record Node(MerkleHash hash, long size) {
    }

    /** docs/PROTOCOL.md's §1.4 pseudo-code, level by level over whole lists: the oracle for the streaming builder. */
    private static MerkleHash cardAgg(List<Node> list) {
        if (list.isEmpty()) return MerkleHash.ZERO;
        while (list.size() > 1) {
            List<Node> next = new ArrayList<>();
            int i = 0;
            while (i < list.size()) {
                int n = cardCut(list, i);
                StringBuilder text = new StringBuilder();
                long sum = 0;
                for (Node x : list.subList(i, i + n)) {
                    text.append(x.hash().hex()).append(" : ").append(Long.toUnsignedString(x.size())).append('\n');
                    sum += x.size();
                }
                byte[] ascii = text.toString().getBytes(StandardCharsets.US_ASCII);
                next.add(new Node(Blake3.get().keyedHash(XetHashes.NODE_KEY, ascii, 0, ascii.length), sum));
                i += n;
            }
            list = next;
        }
        return list.get(0).hash();
    }

    private static int cardCut(List<Node> list, int i) {
        int rem = list.size() - i;
        if (rem <= 2) return rem;
        int end = Math.min(9, rem);
        for (int j = 2; j < end; j++) {
            if (Long.remainderUnsigned(list.get(i + j).hash().word3(), 4) == 0) return j + 1;
        }
        return end;
    }

    @Test
    void streamingRootEqualsTheCardsAlgorithmForEveryLengthUpTo300AndSomeLongLists() {
        SplittableRandom r = new SplittableRandom(11);
        List<Integer> lengths = new ArrayList<>();
        for (int n = 0; n <= 300; n++) lengths.add(n);
        lengths.addAll(List.of(1023, 1024, 1025, 4096, 8192, 20_000));
        for (int n : lengths) {
            byte[] raw = new byte[32 * n];
            long[] sizes = new long[n];
            List<Node> nodes = new ArrayList<>();
            MerkleBuilder tree = new MerkleBuilder();
            for (int k = 0; k < n; k++) {
                for (int b = 0; b < 32; b++) raw[32 * k + b] = (byte) r.nextInt(256);
                sizes[k] = 1 + r.nextInt(131_072);
                nodes.add(new Node(MerkleHash.fromBytes(raw, 32 * k), sizes[k]));
                tree.add(raw, 32 * k, sizes[k]);
            }
            MerkleHash expected = cardAgg(nodes);
            assertEquals(n, tree.leaves());
            assertEquals(expected, tree.root(), "length " + n);
            assertEquals(expected, XetHashes.merkleRoot(raw, sizes, n), "length " + n);
        }
    }

    @Test
    void sizesAreWrittenAsUnsigned64BitDecimals() {
        SplittableRandom r = new SplittableRandom(13);
        for (int n : new int[]{2, 3, 10, 50}) {
            List<Node> nodes = new ArrayList<>();
            MerkleBuilder tree = new MerkleBuilder();
            byte[] raw = new byte[32];
            for (int k = 0; k < n; k++) {
                for (int b = 0; b < 32; b++) raw[b] = (byte) r.nextInt(256);
                long size = k == 0 ? -1L : k == 1 ? 0 : r.nextLong();
                nodes.add(new Node(MerkleHash.fromBytes(raw, 0), size));
                tree.add(raw, 0, size);
            }
            assertEquals(cardAgg(nodes), tree.root(), "length " + n);
        }
    }

    @Test
    void fileHashOfABuilderMatchesTheArrayFormIncludingEmpty() {
        assertEquals(MerkleHash.ZERO, XetHashes.fileHash(new MerkleBuilder()));
        SplittableRandom r = new SplittableRandom(12);
        byte[] raw = new byte[32 * 77];
        long[] sizes = new long[77];
        MerkleBuilder tree = new MerkleBuilder();
        for (int k = 0; k < 77; k++) {
            for (int b = 0; b < 32; b++) raw[32 * k + b] = (byte) r.nextInt(256);
            sizes[k] = 8192 + r.nextInt(1000);
            tree.add(raw, 32 * k, sizes[k]);
        }
        assertEquals(XetHashes.fileHash(raw, sizes, 77), XetHashes.fileHash(tree));
    }
}
