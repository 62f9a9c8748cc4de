package org.openxet.http;

import org.openxet.service.FetchDescriptors;
import org.openxet.service.ReconstructionPlanner.Plan;

import java.util.ArrayList;
import java.util.List;

/**
 * How a reconstruction answer is cut into segments that render independently, in order, each into a buffer of its
 * own: pure (no threads, no I/O), so the cut is tested on its own and {@link AnswerWriter} only schedules it. A small
 * answer is one segment, the whole of it. A large one is runs of terms, then runs of xorbs: the first segment opens
 * the answer, the first xorb run opens the fetch section and the last closes the answer. Each segment's capacity is an
 * upper estimate of its bytes, so its buffer never grows (a doubled 16 MB buffer is a humongous object for G1, which
 * starts concurrent cycles).
 */
final class AnswerLayout {
    /** Answers with fewer terms are one segment, rendered by the request's thread. */
    static final int PARALLEL_MIN_TERMS = 16_384;
    static final int TERMS_PER_SEGMENT = 8_192;
    static final int RANGES_PER_SEGMENT = 12_288;
    /** A xorb run also ends after this many xorbs, so its buffer stays near a term segment's. */
    static final int XORBS_PER_SEGMENT = 1_024;

    /** Upper estimates of record sizes: a term, a xorb's own part of the fetch section. */
    static final int TERM_BYTES = 160;
    static final int XORB_BYTES = 512;
    /** A segment's fixed room: the answer's head, the fetch section's opening, the answer's end. */
    static final int FRAME_BYTES = 256;
    /** The buffer size that holds any segment of a large answer cut by the limits above (pooled buffers are this size). */
    static final int SEGMENT_BYTES = Math.max(TERMS_PER_SEGMENT * TERM_BYTES,
            RANGES_PER_SEGMENT * AnswerFormat.V2_RANGE_BYTES + XORBS_PER_SEGMENT * XORB_BYTES) + 1024;

    /**
     * Terms {@code [termsFrom, termsTo)} then xorbs {@code xorbOrder[xorbsFrom, xorbsTo)}, either run possibly empty.
     *
     * @param opens      writes the answer's head first
     * @param opensFetch writes the fetch section's opening before its xorbs
     * @param closes     writes the answer's end last
     * @param capacity   upper estimate of the segment's bytes
     */
    record Segment(int termsFrom, int termsTo, int xorbsFrom, int xorbsTo, boolean opens, boolean opensFetch,
                   boolean closes, int capacity) {
    }

    private final AnswerFormat format;
    private final Plan plan;
    private final byte[][] hex;
    private final byte[][] heads;
    private final List<Segment> segments;

    private AnswerLayout(AnswerFormat format, Plan plan, UrlSigner signer) {
        this.format = format;
        this.plan = plan;
        this.hex = ReconstructionJson.xorbHex(plan.file());
        this.heads = ReconstructionJson.termHeads(hex);
        this.segments = large(plan) ? cut(format, plan, signer) : List.of(whole(format, plan, signer));
    }

    static AnswerLayout of(AnswerFormat format, Plan plan, UrlSigner signer) {
        return new AnswerLayout(format, plan, signer);
    }

    /** Whether {@code p}'s answer is large: several segments, rendered by several threads and streamed. */
    static boolean large(Plan p) {
        return p.termCount() >= PARALLEL_MIN_TERMS;
    }

    List<Segment> segments() {
        return segments;
    }

    /** Renders segment {@code s}; {@code signer} is the calling thread's own (a signer is not shared by threads). */
    void render(Segment s, JsonBytes out, UrlSigner signer) {
        if (s.opens()) ReconstructionJson.writeHead(out, plan);
        if (s.termsTo() > s.termsFrom()) ReconstructionJson.writeTerms(out, plan, heads, s.termsFrom(), s.termsTo());
        if (s.opensFetch()) format.openFetch(out);
        if (s.xorbsTo() > s.xorbsFrom()) format.fetch(out, plan, hex, signer, s.xorbsFrom(), s.xorbsTo());
        if (s.closes()) ReconstructionJson.writeAnswerEnd(out);
    }

    private static Segment whole(AnswerFormat format, Plan p, UrlSigner signer) {
        long ranges = 0;
        for (int x : p.xorbOrder()) {
            ranges += FetchDescriptors.count(p.fetch()[x]);
        }
        long estimate = (long) p.termCount() * TERM_BYTES + (long) p.xorbOrder().length * XORB_BYTES
                + ranges * format.rangeBytes(signer) + 1024;
        return new Segment(p.firstTerm(), p.endTerm(), 0, p.xorbOrder().length, true, true, true,
                (int) Math.min(estimate, Integer.MAX_VALUE - 1024));
    }

    private static List<Segment> cut(AnswerFormat format, Plan p, UrlSigner signer) {
        List<Segment> out = new ArrayList<>();
        for (int from = p.firstTerm(); from < p.endTerm(); from += TERMS_PER_SEGMENT) {
            int to = Math.min(p.endTerm(), from + TERMS_PER_SEGMENT);
            out.add(new Segment(from, to, 0, 0, from == p.firstTerm(), false, false,
                    (to - from) * TERM_BYTES + FRAME_BYTES));
        }
        // A v1 range carries a whole URL: its bound is the URL's own, so a segment still fits a pooled buffer.
        int rangeBytes = format.rangeBytes(signer);
        int rangesPerSegment = format == AnswerFormat.V2 ? RANGES_PER_SEGMENT
                : Math.max(1, (SEGMENT_BYTES - XORBS_PER_SEGMENT * XORB_BYTES - 1024) / rangeBytes);
        int[] order = p.xorbOrder();
        int start = 0;
        int ranges = 0;
        for (int i = 0; i <= order.length; i++) {
            if (i == order.length || (i > start && (ranges >= rangesPerSegment || i - start >= XORBS_PER_SEGMENT))) {
                out.add(new Segment(p.endTerm(), p.endTerm(), start, i, false, start == 0, i == order.length,
                        ranges * rangeBytes + (i - start) * XORB_BYTES + FRAME_BYTES));
                start = i;
                ranges = 0;
            }
            if (i < order.length) {
                ranges += FetchDescriptors.count(p.fetch()[order[i]]);
            }
        }
        return out;
    }
}
