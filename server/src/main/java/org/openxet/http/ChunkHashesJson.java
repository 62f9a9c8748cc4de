package org.openxet.http;

import org.openxet.protocol.MerkleHashSubtree;
import org.openxet.service.FileChunkHashes;

/** Writes §5.9's file-chunk-hashes answer into a {@link JsonBytes}. */
final class ChunkHashesJson {
    private static final byte[] TOTAL_CHUNKS = JsonBytes.ascii("{\"totalChunks\":");
    private static final byte[] FILE_SIZE = JsonBytes.ascii(",\"fileSize\":");
    private static final byte[] WINDOWS = JsonBytes.ascii(",\"windows\":[");
    private static final byte[] DIRTY_RANGE = JsonBytes.ascii("{\"dirtyByteRange\":[");
    private static final byte[] HASH_RANGES = JsonBytes.ascii("],\"hashRanges\":[");
    private static final byte[] NULL = JsonBytes.ascii("null");
    private static final byte[] NODES = JsonBytes.ascii("{\"nodes\":[");
    private static final byte[] NODE_SIZE = JsonBytes.ascii(",\"size\":");
    private static final byte[] LEVELS = JsonBytes.ascii("],\"levels\":[");
    private static final byte[] AT_START = JsonBytes.ascii("],\"at_start\":");
    private static final byte[] AT_END = JsonBytes.ascii(",\"at_end\":");
    private static final byte[] TRUE = JsonBytes.ascii("true");
    private static final byte[] FALSE = JsonBytes.ascii("false");
    private static final byte[] GAP_VERIFICATION = JsonBytes.ascii("],\"gapVerification\":[");

    private static final byte[] NODE_HASH = JsonBytes.ascii("{\"hash\":");
    private static final byte[] END = JsonBytes.ascii("]}");

    private ChunkHashesJson() {
    }

    /** §5.9's answer: camelCase fields, each gap tree in serde's human-readable form (snake_case), an empty gap null. */
    static void write(JsonBytes out, FileChunkHashes.Answer a) {
        out.raw(TOTAL_CHUNKS).num(a.totalChunks()).raw(FILE_SIZE).num(a.fileSize()).raw(WINDOWS);
        for (int i = 0; i < a.windows().size(); i++) {
            if (i > 0) out.ch(',');
            FileChunkHashes.Range w = a.windows().get(i);
            out.raw(DIRTY_RANGE).num(w.start()).ch(',').num(w.end()).raw(END);
        }
        out.raw(HASH_RANGES);
        for (int i = 0; i < a.hashRanges().size(); i++) {
            if (i > 0) out.ch(',');
            MerkleHashSubtree t = a.hashRanges().get(i);
            if (t == null) {
                out.raw(NULL);
                continue;
            }
            out.raw(NODES);
            for (int k = 0; k < t.nodeCount(); k++) {
                if (k > 0) out.ch(',');
                out.raw(NODE_HASH).hash(t.node(k)).raw(NODE_SIZE).num(t.size(k)).ch('}');
            }
            out.raw(LEVELS);
            for (int l = 0; l < t.levelCount(); l++) {
                if (l > 0) out.ch(',');
                out.ch('[').num(t.left(l)).ch(',').num(t.right(l)).ch(']');
            }
            out.raw(AT_START).raw(t.atStart() ? TRUE : FALSE).raw(AT_END).raw(t.atEnd() ? TRUE : FALSE).ch('}');
        }
        out.raw(GAP_VERIFICATION);
        for (int i = 0; i < a.gapVerification().size(); i++) {
            if (i > 0) out.ch(',');
            out.hash(a.gapVerification().get(i));
        }
        out.raw(END);
    }
}
