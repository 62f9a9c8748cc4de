package org.openxet.protocol.xorb;

import org.openxet.protocol.FormatException;
import org.openxet.protocol.MerkleHash;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/** The stored-object footer, {@code XorbObjectInfo} V1 (written) and V0 (read only), per §3.5. */
public final class XorbFooter {
    private static final VarHandle LE_INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    /** A parsed footer: the hash it claims, its chunk table, and where it starts in the object. */
    public record Parsed(int version, MerkleHash hash, ChunkTable chunks, int footerStart, byte[] nonce) {
    }

    private XorbFooter() {
    }

    /** V1 footer with a zero nonce, followed by the u32 info length: {@code 96 + 40n} bytes. */
    public static byte[] write(MerkleHash hash, ChunkTable t) {
        int n = t.count();
        byte[] out = new byte[Math.toIntExact(XorbFormat.footerSize(n))];
        int p = 0;
        System.arraycopy(XorbFormat.FOOTER_IDENT, 0, out, p, 7);
        out[p + 7] = 1;
        hash.writeTo(out, p + 8);
        p += 40;
        System.arraycopy(XorbFormat.HASHES_IDENT, 0, out, p, 7);
        out[p + 7] = 0;
        LE_INT.set(out, p + 8, n);
        System.arraycopy(t.hashes(), 0, out, p + 12, 32 * n);
        p += 12 + 32 * n;
        System.arraycopy(XorbFormat.BOUNDARIES_IDENT, 0, out, p, 7);
        out[p + 7] = 1;
        LE_INT.set(out, p + 8, n);
        p += 12;
        for (int k = 0; k < n; k++, p += 4) {
            LE_INT.set(out, p, t.byteEnds()[k]);
        }
        for (int k = 0; k < n; k++, p += 4) {
            LE_INT.set(out, p, t.unpackedEnds()[k]);
        }
        LE_INT.set(out, p, n);
        LE_INT.set(out, p + 4, 52 + 40 * n);
        LE_INT.set(out, p + 8, 40 + 8 * n);
        p += 12 + 16; // the 16-byte nonce buffer stays zero
        LE_INT.set(out, p, 92 + 40 * n);
        return out;
    }

    /**
     * Parses the footer at the end of a stored object {@code obj[0, length)}. Checks idents, versions, the three
     * chunk counts, the self-describing offsets and that the footer starts where the last chunk record ends.
     */
    public static Parsed parse(byte[] obj, int length) throws FormatException {
        if (length < 4) {
            throw new FormatException("object too short for a xorb footer");
        }
        long infoLength = Integer.toUnsignedLong((int) LE_INT.get(obj, length - 4));
        if (infoLength + 4 > length || infoLength < 8) {
            throw new FormatException("xorb footer length " + infoLength + " does not fit a " + length + "-byte object");
        }
        int start = (int) (length - 4 - infoLength);
        if (!Arrays.equals(obj, start, start + 7, XorbFormat.FOOTER_IDENT, 0, 7)) {
            throw new FormatException("xorb footer ident XETBLOB missing");
        }
        int version = obj[start + 7];
        return switch (version) {
            case 1 -> parseV1(obj, start, (int) infoLength);
            case 0 -> parseV0(obj, start, (int) infoLength);
            default -> throw new FormatException("unknown xorb footer version " + version);
        };
    }

    private static Parsed parseV1(byte[] obj, int start, int infoLength) throws FormatException {
        if (infoLength < 92 || (infoLength - 92) % 40 != 0) {
            throw new FormatException("xorb footer V1 length " + infoLength + " is not 92 + 40n");
        }
        int n = (infoLength - 92) / 40;
        MerkleHash hash = MerkleHash.fromBytes(obj, start + 8);
        int p = start + 40;
        expectIdent(obj, p, XorbFormat.HASHES_IDENT, 0, "hash section");
        checkCount(obj, p + 8, n);
        byte[] hashes = Arrays.copyOfRange(obj, p + 12, p + 12 + 32 * n);
        p += 12 + 32 * n;
        expectIdent(obj, p, XorbFormat.BOUNDARIES_IDENT, 1, "boundary section");
        checkCount(obj, p + 8, n);
        p += 12;
        int[] byteEnds = new int[n];
        int[] unpackedEnds = new int[n];
        for (int k = 0; k < n; k++, p += 4) {
            byteEnds[k] = (int) LE_INT.get(obj, p);
        }
        for (int k = 0; k < n; k++, p += 4) {
            unpackedEnds[k] = (int) LE_INT.get(obj, p);
        }
        checkCount(obj, p, n);
        if ((int) LE_INT.get(obj, p + 4) != 52 + 40 * n || (int) LE_INT.get(obj, p + 8) != 40 + 8 * n) {
            throw new FormatException("xorb footer section offsets are inconsistent");
        }
        byte[] nonce = Arrays.copyOfRange(obj, p + 12, p + 28);
        ChunkTable table = new ChunkTable(n, hashes, byteEnds, unpackedEnds);
        checkLayout(table, start);
        return new Parsed(1, hash, table, start, nonce);
    }

    /** Legacy V0 (§3.5): no unpacked offsets, so those come back as -1 until the chunks are decoded. */
    private static Parsed parseV0(byte[] obj, int start, int infoLength) throws FormatException {
        if (infoLength < 60 || (infoLength - 60) % 36 != 0) {
            throw new FormatException("xorb footer V0 length " + infoLength + " is not 60 + 36n");
        }
        int n = (infoLength - 60) / 36;
        MerkleHash hash = MerkleHash.fromBytes(obj, start + 8);
        int p = start + 40;
        checkCount(obj, p, n);
        p += 4;
        int[] byteEnds = new int[n];
        for (int k = 0; k < n; k++, p += 4) {
            byteEnds[k] = (int) LE_INT.get(obj, p);
        }
        byte[] hashes = Arrays.copyOfRange(obj, p, p + 32 * n);
        int[] unpackedEnds = new int[n];
        Arrays.fill(unpackedEnds, -1);
        ChunkTable table = new ChunkTable(n, hashes, byteEnds, unpackedEnds);
        checkLayout(table, start);
        return new Parsed(0, hash, table, start, Arrays.copyOfRange(obj, p + 32 * n, p + 32 * n + 16));
    }

    private static void expectIdent(byte[] obj, int p, byte[] ident, int version, String what) throws FormatException {
        if (!Arrays.equals(obj, p, p + 7, ident, 0, 7) || obj[p + 7] != version) {
            throw new FormatException("xorb footer " + what + " ident or version is wrong");
        }
    }

    private static void checkCount(byte[] obj, int p, int n) throws FormatException {
        if ((int) LE_INT.get(obj, p) != n) {
            throw new FormatException("xorb footer chunk counts disagree");
        }
    }

    private static void checkLayout(ChunkTable t, int footerStart) throws FormatException {
        int prev = 0;
        for (int k = 0; k < t.count(); k++) {
            int end = t.byteEnds()[k];
            if (end - prev < XorbFormat.CHUNK_HEADER_SIZE || end > footerStart) {
                throw new FormatException("xorb footer chunk boundary " + k + " is out of order or out of bounds");
            }
            prev = end;
        }
        if (prev != footerStart) {
            throw new FormatException("xorb footer does not start where the last chunk ends");
        }
    }
}
