package org.openxet.http;

import org.openxet.service.ReconstructionPlanner.ByteRange;

import java.util.ArrayList;
import java.util.List;

/** {@code Range: bytes=...} parsing (RFC 7233 byte ranges): {@code S-E}, {@code S-} and {@code -N}. */
final class RangeHeader {
    private RangeHeader() {
    }

    /** All ranges of the header; null when there is no header. Malformed → 400. */
    static List<ByteRange> parse(String header) throws HttpError {
        if (header == null) {
            return null;
        }
        String h = header.trim();
        if (!h.regionMatches(true, 0, "bytes=", 0, 6)) {
            throw HttpError.badRequest("Range must be bytes=...: " + header);
        }
        List<ByteRange> out = new ArrayList<>();
        for (String part : h.substring(6).split(",")) {
            String s = part.trim();
            int dash = s.indexOf('-');
            if (dash < 0 || s.indexOf('-', dash + 1) >= 0) {
                throw HttpError.badRequest("malformed byte range '" + s + "'");
            }
            try {
                String a = s.substring(0, dash).trim();
                String b = s.substring(dash + 1).trim();
                if (a.isEmpty()) {
                    if (b.isEmpty()) throw HttpError.badRequest("malformed byte range '" + s + "'");
                    out.add(new ByteRange(0, digits(b), true));
                } else {
                    long start = digits(a);
                    long end = b.isEmpty() ? ByteRange.OPEN : digits(b);
                    out.add(new ByteRange(start, end, false));
                }
            } catch (NumberFormatException e) {
                throw HttpError.badRequest("malformed byte range '" + s + "'");
            }
        }
        if (out.isEmpty()) {
            throw HttpError.badRequest("empty Range header");
        }
        return out;
    }

    /**
     * A decimal position; one past 2^63 - 1 saturates there, beyond every object (the protocol's positions are u64:
     * an end that large is clamped to the file like any other, a start that large is past it).
     */
    private static long digits(String s) {
        if (s.isEmpty()) throw new NumberFormatException(s);
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') throw new NumberFormatException(s);
        }
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException tooLarge) {
            return Long.MAX_VALUE;
        }
    }

    /** The single range of a reconstruction request (null when none); several ranges → 400. */
    static ByteRange single(String header) throws HttpError {
        List<ByteRange> all = parse(header);
        if (all == null) return null;
        if (all.size() != 1) {
            throw HttpError.badRequest("a reconstruction takes one byte range, got " + all.size());
        }
        return all.get(0);
    }
}
