package org.openxet.http;

import org.openxet.service.ReconstructionPlanner.Plan;
import org.openxet.service.SignedUrls;

/**
 * The two reconstruction answer formats: the same head and terms, then the fetch section, §5.5's {@code xorbs}
 * entries (a signed URL per entry of up to ~7 KiB of ranges) or §5.4's {@code fetch_info} (a signed URL per range, so
 * its ranges weigh more).
 */
public enum AnswerFormat {
    V2, V1;

    /** A v1 range's record without its URL: fragments and four numbers. */
    static final int V1_RANGE_FIXED = 128;
    /** Upper estimate of one v2 range's bytes, its share of the entry's URL included. */
    static final int V2_RANGE_BYTES = 120;

    /** The format a route's version number names. */
    public static AnswerFormat of(int version) {
        return version == 1 ? V1 : V2;
    }

    /** The answer's exact length, computed without rendering. */
    long measure(Plan p, UrlSigner signer) {
        return this == V2 ? ReconstructionJson.measureV2(p, signer) : ReconstructionJson.measureV1(p, signer);
    }

    /** Upper estimate of one range's bytes in the fetch section: v1 carries a whole URL per range. */
    int rangeBytes(UrlSigner signer) {
        return this == V2 ? V2_RANGE_BYTES : V1_RANGE_FIXED + signer.urlLength(SignedUrls.MAX_GRANT_RANGE_CHARS);
    }

    /** Opens the fetch section, after the terms. */
    void openFetch(JsonBytes out) {
        if (this == V2) {
            ReconstructionJson.writeV2Middle(out);
        } else {
            ReconstructionJson.writeV1Middle(out);
        }
    }

    /** The fetch section's part for xorbs {@code xorbOrder[from, to)}. */
    void fetch(JsonBytes out, Plan p, byte[][] hex, UrlSigner signer, int from, int to) {
        if (this == V2) {
            ReconstructionJson.writeXorbs(out, p, hex, signer, from, to);
        } else {
            ReconstructionJson.writeFetchInfo(out, p.xorbOrder(), p.fetch(), hex, signer, from, to);
        }
    }
}
