package org.openxet.protocol.xorb;

/** Constants of the xorb format (§3.1–§3.5). */
public final class XorbFormat {
    public static final int CHUNK_HEADER_SIZE = 8;
    /** §3.1: the client cuts a xorb before 64 MiB of raw bytes or 8 192 chunks. */
    public static final int MAX_CHUNKS = 8192;
    public static final long MAX_RAW_BYTES = 64L << 20;
    public static final int MAX_CHUNK_BYTES = 131072;
    public static final int MAX_COMPRESSED_BYTES = 2 * MAX_CHUNK_BYTES;
    /**
     * Largest upload body we accept: 64 MiB of chunk data (compression never expands a stored chunk, §3.3) plus a
     * header per chunk, plus room for a footer a client may already have appended (§3.4).
     */
    public static final long MAX_UPLOAD_BYTES = MAX_RAW_BYTES + (long) CHUNK_HEADER_SIZE * MAX_CHUNKS + footerSize(MAX_CHUNKS);

    public static final int SCHEME_NONE = 0;
    public static final int SCHEME_LZ4 = 1;
    public static final int SCHEME_BG4_LZ4 = 2;

    /** "XETBLOB": a would-be chunk header starting with it is the footer (§3.2). */
    static final byte[] FOOTER_IDENT = {'X', 'E', 'T', 'B', 'L', 'O', 'B'};
    static final byte[] HASHES_IDENT = {'X', 'B', 'L', 'B', 'H', 'S', 'H'};
    static final byte[] BOUNDARIES_IDENT = {'X', 'B', 'L', 'B', 'B', 'N', 'D'};

    private XorbFormat() {
    }

    /** Bytes the V1 footer plus its trailing length add after the chunk records (§3.5): 96 + 40n. */
    public static long footerSize(int chunkCount) {
        return 96L + 40L * chunkCount;
    }

    /** A little-endian u24 of a chunk header (§3.2: the compressed and uncompressed lengths). */
    public static int u24(byte[] b, int p) {
        return (b[p] & 0xFF) | (b[p + 1] & 0xFF) << 8 | (b[p + 2] & 0xFF) << 16;
    }

    public static String schemeName(int scheme) {
        return switch (scheme) {
            case SCHEME_NONE -> "none";
            case SCHEME_LZ4 -> "lz4";
            case SCHEME_BG4_LZ4 -> "bg4_lz4";
            default -> "unknown(" + scheme + ")";
        };
    }
}
