package org.openxet.storage;

import org.openxet.protocol.MerkleHash;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Little-endian packing of int arrays and hash lists into index BLOBs. */
final class Packing {
    private Packing() {
    }

    static byte[] ints(int[]... arrays) {
        int n = 0;
        for (int[] a : arrays) n += a.length;
        ByteBuffer b = ByteBuffer.allocate(4 * n).order(ByteOrder.LITTLE_ENDIAN);
        // asIntBuffer does not advance the parent buffer: place each array explicitly.
        int pos = 0;
        for (int[] a : arrays) {
            b.position(pos);
            b.slice().order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().put(a);
            pos += 4 * a.length;
        }
        return b.array();
    }

    static int[] ints(byte[] blob, int fromInt, int count) {
        int[] out = new int[count];
        ByteBuffer.wrap(blob, 4 * fromInt, 4 * count).slice().order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(out);
        return out;
    }

    static byte[] hashes(MerkleHash[] hashes) {
        byte[] out = new byte[32 * hashes.length];
        for (int i = 0; i < hashes.length; i++) {
            hashes[i].writeTo(out, 32 * i);
        }
        return out;
    }

    static MerkleHash[] hashes(byte[] raw) {
        MerkleHash[] out = new MerkleHash[raw.length / 32];
        for (int i = 0; i < out.length; i++) {
            out[i] = MerkleHash.fromBytes(raw, 32 * i);
        }
        return out;
    }
}
