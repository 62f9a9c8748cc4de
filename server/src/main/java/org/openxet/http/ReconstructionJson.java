package org.openxet.http;

import org.openxet.protocol.MerkleHash;
import org.openxet.service.BatchPlan;
import org.openxet.service.FetchDescriptors;
import org.openxet.service.ReconstructionPlanner.Plan;
import org.openxet.service.SignedUrls;
import org.openxet.storage.FileRecord;

/**
 * Writes reconstruction answers (§5.4 v1, §5.5 v2) straight into a {@link JsonBytes} stream. Field names are the
 * clients' serde names; every fetch entry gets its own URL (the JS client fails when two entries of a xorb share one).
 */
public final class ReconstructionJson {
    /**
     * §5.5: a v2 entry ends once its ranges, written as the decimal {@code s-e,s-e} of a Range header, reach about 7
     * KiB: upstream splits entries to keep URLs under about 8 KiB, and a client that fetches an entry with one
     * multi-range request sends that text as its Range header. (Our URLs carry the same ranges in fewer characters.)
     */
    public static final int MAX_RANGES_TEXT = 7 * 1024;

    private static final byte[] OFFSET = JsonBytes.ascii("{\"offset_into_first_range\":");
    private static final byte[] TERMS = JsonBytes.ascii(",\"terms\":[");
    private static final byte[] TERM_HASH = JsonBytes.ascii("{\"hash\":");
    private static final byte[] UNPACKED = JsonBytes.ascii(",\"unpacked_length\":");
    private static final byte[] RANGE_START = JsonBytes.ascii(",\"range\":{\"start\":");
    private static final byte[] END = JsonBytes.ascii(",\"end\":");
    private static final byte[] CLOSE2 = JsonBytes.ascii("}}");
    private static final byte[] XORBS = JsonBytes.ascii("],\"xorbs\":{");
    private static final byte[] FETCH_INFO = JsonBytes.ascii("],\"fetch_info\":{");
    private static final byte[] URL = JsonBytes.ascii("{\"url\":\"");
    private static final byte[] RANGES = JsonBytes.ascii("\",\"ranges\":[");
    private static final byte[] CHUNKS = JsonBytes.ascii("{\"chunks\":{\"start\":");
    private static final byte[] BYTES = JsonBytes.ascii("},\"bytes\":{\"start\":");
    private static final byte[] V1_RANGE = JsonBytes.ascii("{\"range\":{\"start\":");
    private static final byte[] V1_URL = JsonBytes.ascii("},\"url\":\"");
    private static final byte[] V1_URL_RANGE = JsonBytes.ascii("\",\"url_range\":{\"start\":");
    private static final byte[] COLON_ARRAY = JsonBytes.ascii(":[");
    private static final byte[] END_ENTRY = JsonBytes.ascii("]}");

    private ReconstructionJson() {
    }

    /** Quoted hex of each of the file's xorbs, computed once per answer. */
    static byte[][] xorbHex(FileRecord f) {
        MerkleHash[] xorbs = f.xorbs();
        byte[][] hex = new byte[xorbs.length][];
        for (int i = 0; i < xorbs.length; i++) {
            hex[i] = xorbs[i].hexBytes();
        }
        return hex;
    }

    /** Largest term record: the head below, three numbers and the fixed fragments. */
    private static final int MAX_TERM = 80 + 3 * 12 + 32;

    /**
     * {@code {"hash":"<hex>","unpacked_length":} per xorb, built once per answer: a term then costs one copy of it,
     * three numbers and two fixed fragments, written with a single capacity check.
     */
    static byte[][] termHeads(byte[][] hex) {
        byte[][] heads = new byte[hex.length][];
        for (int i = 0; i < hex.length; i++) {
            heads[i] = termHead(hex[i]);
        }
        return heads;
    }

    private static byte[] termHead(byte[] hex) {
        byte[] h = new byte[TERM_HASH.length + 2 + hex.length + UNPACKED.length];
        int p = JsonBytes.put(h, 0, TERM_HASH);
        h[p++] = '"';
        p = JsonBytes.put(h, p, hex);
        h[p++] = '"';
        JsonBytes.put(h, p, UNPACKED);
        return h;
    }

    static void writeTerms(JsonBytes out, Plan p, byte[][] hex) {
        writeTerms(out, p, termHeads(hex), p.firstTerm(), p.endTerm());
    }

    /** Terms {@code [from, to)} of the plan; a comma precedes every term but the plan's first. */
    static void writeTerms(JsonBytes out, Plan p, byte[][] heads, int from, int to) {
        FileRecord file = p.file();
        int t = from;
        // The plan's first and last terms may be trimmed, so they go through its accessors; every term between them
        // is read straight from the record, a batch at a time under one capacity check.
        if (t < to && t == p.firstTerm()) {
            writeTerm(out, p, heads, file, t++);
        }
        int middleEnd = Math.min(to, p.endTerm() - 1);
        if (t < middleEnd) {
            writeRecordTerms(out, file, heads, t, middleEnd);
            t = middleEnd;
        }
        if (t < to) {
            writeTerm(out, p, heads, file, t);
        }
    }

    /**
     * Terms {@code [from, to)} of a record as they are, each preceded by a comma: every term of an answer but its
     * first and last (which a range may trim).
     */
    private static void writeRecordTerms(JsonBytes out, FileRecord file, byte[][] heads, int from, int to) {
        for (int t = from; t < to; ) {
            int end = Math.min(to, t + TERM_BATCH);
            byte[] b = out.reserve((end - t) * MAX_TERM);
            int q = out.position();
            for (; t < end; t++) {
                b[q++] = ',';
                q = putTerm(b, q, heads[file.term(t, FileRecord.XORB)],
                        Integer.toUnsignedLong(file.term(t, FileRecord.UNPACKED)), file.term(t, FileRecord.CHUNK_START),
                        file.term(t, FileRecord.CHUNK_END));
            }
            out.position(q);
        }
    }

    /** The digits of term {@code t}'s three numbers as the record holds them (untrimmed). */
    private static int recordTermDigits(FileRecord file, int t) {
        return JsonBytes.digits(Integer.toUnsignedLong(file.term(t, FileRecord.UNPACKED)))
                + JsonBytes.digits(file.term(t, FileRecord.CHUNK_START))
                + JsonBytes.digits(file.term(t, FileRecord.CHUNK_END));
    }

    /** Terms rendered under one capacity check. */
    private static final int TERM_BATCH = 256;

    private static void writeTerm(JsonBytes out, Plan p, byte[][] heads, FileRecord file, int t) {
        byte[] b = out.reserve(MAX_TERM);
        int q = out.position();
        if (t > p.firstTerm()) b[q++] = ',';
        q = putTerm(b, q, heads[file.term(t, FileRecord.XORB)], p.unpacked(t), p.chunkStart(t),
                p.chunkEnd(t));
        out.position(q);
    }

    /** One term record after its xorb's head; returns the position after it. */
    private static int putTerm(byte[] b, int q, byte[] head, long unpacked, int chunkStart, int chunkEnd) {
        q = JsonBytes.put(b, q, head);
        q = JsonBytes.putNum(b, q, unpacked);
        q = JsonBytes.put(b, q, RANGE_START);
        q = JsonBytes.putNum(b, q, chunkStart);
        q = JsonBytes.put(b, q, END);
        q = JsonBytes.putNum(b, q, chunkEnd);
        b[q++] = '}';
        b[q++] = '}';
        return q;
    }

    /** Largest v2 range record: fixed fragments and four numbers. */
    private static final int MAX_RANGE = 64 + 4 * 12;

    /** The v2 answer: terms, then per xorb entries of at most ~7 KiB of ranges, each entry with its own URL. */
    public static void writeV2(JsonBytes out, Plan p, UrlSigner signer) {
        byte[][] hex = xorbHex(p.file());
        writeHead(out, p);
        writeTerms(out, p, termHeads(hex), p.firstTerm(), p.endTerm());
        out.raw(XORBS);
        writeXorbs(out, p, hex, signer, 0, p.xorbOrder().length);
        out.raw(CLOSE2);
    }

    /** The answer's head in either format: the offset and the opening of the terms. */
    static void writeHead(JsonBytes out, Plan p) {
        out.raw(OFFSET).num(p.offsetIntoFirstRange()).raw(TERMS);
    }

    /** Between the terms and the xorbs of a v2 answer. */
    static void writeV2Middle(JsonBytes out) {
        out.raw(XORBS);
    }

    /** After the last xorb of either format: closes the fetch section and the answer. */
    static void writeAnswerEnd(JsonBytes out) {
        out.raw(CLOSE2);
    }

    /**
     * Where the entry that starts at descriptor {@code from} of {@code d} ends (exclusive): descriptors are added while
     * their decimal ranges text stays under {@link #MAX_RANGES_TEXT}, and an entry has at least one.
     */
    public static int entryEnd(int[] d, int from) {
        int m = FetchDescriptors.count(d);
        int text = 0;
        int to = from;
        while (to < m && (to == from || text < MAX_RANGES_TEXT)) {
            text += (to > from ? 1 : 0) + JsonBytes.digits(FetchDescriptors.byteStart(d, to)) + 1
                    + JsonBytes.digits(FetchDescriptors.lastByte(d, to));
            to++;
        }
        return to;
    }

    /** The fetch entries of xorbs {@code xorbOrder[from, to)}; a comma precedes every xorb but the first. */
    static void writeXorbs(JsonBytes out, Plan p, byte[][] hex, UrlSigner signer, int fromXorb, int toXorb) {
        for (int i = fromXorb; i < toXorb; i++) {
            int x = p.xorbOrder()[i];
            int[] d = p.fetch()[x];
            if (i > 0) out.ch(',');
            out.ch('"').raw(hex[x]).ch('"').raw(COLON_ARRAY);
            int m = FetchDescriptors.count(d);
            for (int from = 0, to; from < m; from = to) {
                to = entryEnd(d, from);
                if (from > 0) out.ch(',');
                out.raw(URL);
                signer.write(out, hex[x], d, from, to);
                out.raw(RANGES);
                for (int k = from; k < to; k++) {
                    byte[] b = out.reserve(MAX_RANGE);
                    int q = out.position();
                    if (k > from) b[q++] = ',';
                    q = JsonBytes.put(b, q, CHUNKS);
                    q = JsonBytes.putNum(b, q, FetchDescriptors.chunkStart(d, k));
                    q = JsonBytes.put(b, q, END);
                    q = JsonBytes.putNum(b, q, FetchDescriptors.chunkEnd(d, k));
                    q = JsonBytes.put(b, q, BYTES);
                    q = JsonBytes.putNum(b, q, FetchDescriptors.byteStart(d, k));
                    q = JsonBytes.put(b, q, END);
                    q = JsonBytes.putNum(b, q, FetchDescriptors.lastByte(d, k));
                    b[q++] = '}';
                    b[q++] = '}';
                    out.position(q);
                }
                out.raw(END_ENTRY);
            }
            out.ch(']');
        }
    }

    /**
     * The exact byte length of {@link #writeV2}'s output, computed without rendering (digit counts and fixed
     * fragments, grouped into entries exactly as {@link #writeXorbs} groups them), so a streamed answer can carry a
     * Content-Length: the server's chunked encoding measured 30–40% more CPU per large answer.
     */
    public static long measureV2(Plan p, UrlSigner signer) {
        return headAndTermsLength(p) + xorbsLength(p, signer);
    }

    /** The bytes of an answer (v1 or v2) before its fetch section: the offset, the opening of the terms and the terms. */
    private static long headAndTermsLength(Plan p) {
        return OFFSET.length + JsonBytes.digits(p.offsetIntoFirstRange()) + TERMS.length + termsLength(p);
    }

    /** The bytes of a v2 answer's fetch section: from the terms' closing bracket to the end of the answer. */
    private static long xorbsLength(Plan p, UrlSigner signer) {
        long n = XORBS.length;
        int rangeFixed = CHUNKS.length + END.length + BYTES.length + END.length + 2;
        for (int i = 0; i < p.xorbOrder().length; i++) {
            int[] d = p.fetch()[p.xorbOrder()[i]];
            n += (i > 0 ? 1 : 0) + 1 + 64 + 1 + COLON_ARRAY.length + 1;
            int m = FetchDescriptors.count(d);
            for (int from = 0, to = 0; from < m; from = to) {
                // One pass per entry: where it ends (the same rule as entryEnd), its records and its URL's grant.
                int text = 0;
                int grant = 0;
                long records = 0;
                long previousEnd = -1;
                for (; to < m && (to == from || text < MAX_RANGES_TEXT); to++) {
                    long start = FetchDescriptors.byteStart(d, to);
                    long end = FetchDescriptors.lastByte(d, to);
                    int numbers = JsonBytes.digits(start) + JsonBytes.digits(end);
                    text += (to > from ? 1 : 0) + numbers + 1;
                    records += (to > from ? 1 : 0) + rangeFixed + JsonBytes.digits(FetchDescriptors.chunkStart(d, to))
                            + JsonBytes.digits(FetchDescriptors.chunkEnd(d, to)) + numbers;
                    grant += SignedUrls.grantRangeLength(previousEnd, start, end);
                    previousEnd = end;
                }
                n += (from > 0 ? 1 : 0) + URL.length + signer.urlLength(grant) + RANGES.length + records
                        + END_ENTRY.length;
            }
        }
        return n + CLOSE2.length;
    }

    /** The bytes {@link #writeTerms} writes for the plan's terms, computed without rendering. */
    private static long termsLength(Plan p) {
        int first = p.firstTerm();
        int last = p.endTerm() - 1;
        if (last < first) return 0;
        int fixed = TERM_HASH.length + 2 + 64 + UNPACKED.length + RANGE_START.length + END.length + 2;
        // The first and last terms through the plan (they may be trimmed), the others straight from the record, each
        // after its comma, as writeTerms renders them.
        long n = fixed + JsonBytes.digits(p.unpacked(first)) + JsonBytes.digits(p.chunkStart(first))
                + JsonBytes.digits(p.chunkEnd(first));
        if (last == first) {
            return n;
        }
        FileRecord file = p.file();
        n += (long) (last - first - 1) * (fixed + 1);
        for (int t = first + 1; t < last; t++) {
            n += recordTermDigits(file, t);
        }
        n += 1 + fixed + JsonBytes.digits(p.unpacked(last)) + JsonBytes.digits(p.chunkStart(last))
                + JsonBytes.digits(p.chunkEnd(last));
        return n;
    }

    /**
     * The exact byte length of {@link #writeV1}'s output, computed without rendering, so the v1 answer carries a
     * Content-Length too instead of Helidon's chunked encoding.
     */
    public static long measureV1(Plan p, UrlSigner signer) {
        return headAndTermsLength(p) + fetchInfoLength(p, signer);
    }

    /** The bytes of a v1 answer's fetch section: from the terms' closing bracket to the end of the answer. */
    private static long fetchInfoLength(Plan p, UrlSigner signer) {
        long n = FETCH_INFO.length;
        int recordFixed = V1_RANGE.length + END.length + V1_URL.length + V1_URL_RANGE.length + END.length + CLOSE2.length;
        for (int i = 0; i < p.xorbOrder().length; i++) {
            int[] d = p.fetch()[p.xorbOrder()[i]];
            int m = FetchDescriptors.count(d);
            n += (i > 0 ? 1 : 0) + 1 + 64 + 1 + COLON_ARRAY.length + 1 + Math.max(0, m - 1);
            for (int k = 0; k < m; k++) {
                long start = FetchDescriptors.byteStart(d, k);
                long end = FetchDescriptors.lastByte(d, k);
                n += recordFixed + JsonBytes.digits(FetchDescriptors.chunkStart(d, k))
                        + JsonBytes.digits(FetchDescriptors.chunkEnd(d, k))
                        + signer.urlLength(SignedUrls.grantRangeLength(-1, start, end))
                        + JsonBytes.digits(start) + JsonBytes.digits(end);
            }
        }
        return n + CLOSE2.length;
    }

    /** The v1 answer: one fetch_info entry (and URL) per merged range. */
    public static void writeV1(JsonBytes out, Plan p, UrlSigner signer) {
        byte[][] hex = xorbHex(p.file());
        writeHead(out, p);
        writeTerms(out, p, hex);
        out.raw(FETCH_INFO);
        writeFetchInfo(out, p.xorbOrder(), p.fetch(), hex, signer);
        out.raw(CLOSE2);
    }

    /** Between the terms and the fetch_info entries of a v1 answer. */
    static void writeV1Middle(JsonBytes out) {
        out.raw(FETCH_INFO);
    }

    static void writeFetchInfo(JsonBytes out, int[] order, int[][] fetch, byte[][] hex, UrlSigner signer) {
        writeFetchInfo(out, order, fetch, hex, signer, 0, order.length);
    }

    /** The fetch_info entries of xorbs {@code order[from, to)}; a comma precedes every xorb but the first. */
    static void writeFetchInfo(JsonBytes out, int[] order, int[][] fetch, byte[][] hex, UrlSigner signer, int from,
                               int to) {
        for (int i = from; i < to; i++) {
            int x = order[i];
            int[] d = fetch[x];
            if (i > 0) out.ch(',');
            out.ch('"').raw(hex[x]).ch('"').raw(COLON_ARRAY);
            for (int k = 0; k < FetchDescriptors.count(d); k++) {
                if (k > 0) out.ch(',');
                out.raw(V1_RANGE).num(FetchDescriptors.chunkStart(d, k)).raw(END).num(FetchDescriptors.chunkEnd(d, k))
                        .raw(V1_URL);
                signer.write(out, hex[x], d, k, k + 1);
                out.raw(V1_URL_RANGE).num(FetchDescriptors.byteStart(d, k)).raw(END)
                        .num(FetchDescriptors.lastByte(d, k)).raw(CLOSE2);
            }
            out.ch(']');
        }
    }

    private static final byte[] BATCH_FILES = JsonBytes.ascii("{\"files\":{");
    private static final byte[] BATCH_FETCH_INFO = JsonBytes.ascii("},\"fetch_info\":{");

    /**
     * §5.6's batch answer: per file its terms, then one {@code fetch_info} for all of them, each xorb's descriptors
     * merged across the files ({@link BatchPlan}).
     */
    static void writeBatch(JsonBytes out, BatchPlan batch, UrlSigner signer) {
        out.raw(BATCH_FILES);
        boolean first = true;
        for (var e : batch.files().entrySet()) {
            if (!first) out.ch(',');
            first = false;
            out.hash(e.getKey()).raw(COLON_ARRAY);
            writeTerms(out, e.getValue(), xorbHex(e.getValue().file()));
            out.ch(']');
        }
        out.raw(BATCH_FETCH_INFO);
        writeFetchInfo(out, batch.order(), batch.fetch(), batch.xorbHex(), signer);
        out.raw(CLOSE2);
    }
}
