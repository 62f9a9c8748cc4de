package org.openxet.http;

import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import org.openxet.service.AuthException;
import org.openxet.service.ReconstructionPlanner.ByteRange;
import org.openxet.service.Services;
import org.openxet.service.SignedUrls;
import org.openxet.service.XorbIngest;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code GET /v1/fetch/{xorb}?g=&s=&e=&t=}: the signed URLs of reconstruction answers (§5.8). No Authorization header
 * (the clients never send one here): the signed query is the credential. Serves exactly the requested ranges — one
 * as a 206, several as {@code multipart/byteranges} (RFC 7233) — streamed from the bucket, never the whole object.
 * Tampered, expired or out-of-grant requests get 403, on which the clients re-query the reconstruction.
 */
final class FetchRoutes {
    private static final int COPY_BUFFER = 256 * 1024;
    /**
     * Separate ranges one fetch may ask for: as many as its URL grants (a client asks for each granted range once),
     * at least this many. Each part is a read from the store (a GetObject on S3) and a part header in the answer.
     */
    static final int MIN_PARTS = 16;
    private final Services services;
    private final SignedUrls urls;
    private final ServerMetrics metrics;

    FetchRoutes(Services services, SignedUrls urls, ServerMetrics metrics) {
        this.services = services;
        this.urls = urls;
        this.metrics = metrics;
    }

    void register(RouteTable routes) {
        routes.open(Method.GET, SignedUrls.PATH + "{xorb}", this::fetch);
    }

    record Span(long start, long end) {
        long length() {
            return end - start + 1;
        }
    }

    private void fetch(ServerRequest req, ServerResponse res) throws Exception {
        var q = req.query();
        String xorbHex = req.path().pathParameters().get("xorb");
        SignedUrls.FetchGrant grant = urls.verify(xorbHex, q.first("g").orElse(null), q.first("r").orElse(null),
                q.first("s").map(SignedUrls::encodeScope).orElse(null), q.first("e").orElse(null), q.first("t").orElse(null));
        String key = XorbIngest.key(grant.xorb());
        long total = services.bucket().size(key).orElseThrow(() -> new IllegalStateException(
                "xorb " + grant.xorb() + " is registered but its object is missing"));
        List<ByteRange> requested = RangeHeader.parse(req.headers().first(HeaderNames.RANGE).orElse(null));
        List<Span> spans = new ArrayList<>();
        if (requested == null) {
            // No Range header: everything the URL grants.
            for (int i = 0; i < grant.ranges().length; i += 2) {
                spans.add(new Span(grant.ranges()[i], grant.ranges()[i + 1]));
            }
        } else {
            for (ByteRange r : requested) {
                long start = r.suffix() ? Math.max(0, total - r.endInclusive()) : r.start();
                long end = r.suffix() || r.endInclusive() == ByteRange.OPEN ? total - 1 : r.endInclusive();
                if (start > end) {
                    throw new HttpError(416, "range_not_satisfiable", "empty byte range " + start + "-" + end);
                }
                spans.add(new Span(start, end));
            }
        }
        for (Span s : spans) {
            if (!grant.allows(s.start(), s.end())) {
                throw new AuthException("bytes " + s.start() + "-" + s.end() + " are outside what this URL grants", true);
            }
            if (s.end() >= total) {
                throw new HttpError(416, "range_not_satisfiable", "bytes " + s.start() + "-" + s.end() + " past the object end");
            }
        }
        spans = coalesce(spans);
        int maxParts = Math.max(MIN_PARTS, grant.ranges().length / 2);
        if (spans.size() > maxParts) {
            throw HttpError.badRequest("a fetch takes at most " + maxParts + " separate byte ranges here, got "
                    + spans.size() + " after merging overlapping and adjacent ones");
        }
        // The first range is opened before the response is begun: a store that fails to answer is still a clean 503
        // (Errors), where a failure after the headers can only cut the connection.
        try (InputStream first = services.bucket().openRange(key, spans.get(0).start(), spans.get(0).length())) {
            if (spans.size() == 1) {
                Span s = spans.get(0);
                res.status(206);
                res.header(HeaderNames.CONTENT_TYPE, "application/octet-stream");
                res.header(HeaderNames.CONTENT_RANGE, "bytes " + s.start() + "-" + s.end() + "/" + total);
                res.contentLength(s.length());
                try (OutputStream out = ResponseChannel.body(req, res, s.length())) {
                    copy(key, first, s, out);
                }
                metrics.fetched(s.length());
                return;
            }
            multipart(req, res, key, total, spans, first);
        }
    }

    /**
     * The spans sorted, overlapping and adjacent ones merged (RFC 9110 §14.2 lets a server coalesce them). The clients
     * never send such ranges (a reconstruction answer's ranges per URL are already merged, §5.5), so for them this
     * changes nothing; for a request that repeats its grant a thousand times it is what keeps the answer within the
     * grant: disjoint spans that each lie inside the grant add up to at most the grant.
     */
    static List<Span> coalesce(List<Span> spans) {
        if (spans.size() < 2) return spans;
        List<Span> sorted = new ArrayList<>(spans);
        sorted.sort(Comparator.comparingLong(Span::start));
        List<Span> out = new ArrayList<>();
        Span current = sorted.get(0);
        for (int i = 1; i < sorted.size(); i++) {
            Span next = sorted.get(i);
            if (next.start() <= current.end() + 1) {
                current = new Span(current.start(), Math.max(current.end(), next.end()));
            } else {
                out.add(current);
                current = next;
            }
        }
        out.add(current);
        return out;
    }

    private void multipart(ServerRequest req, ServerResponse res, String key, long total, List<Span> spans, InputStream first)
            throws IOException {
        String boundary = "openxet-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
        List<byte[]> heads = new ArrayList<>();
        long length = 0;
        for (Span s : spans) {
            byte[] head = ("--" + boundary + "\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes "
                    + s.start() + "-" + s.end() + "/" + total + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
            heads.add(head);
            length += head.length + s.length() + 2;
        }
        byte[] tail = ("--" + boundary + "--\r\n").getBytes(StandardCharsets.US_ASCII);
        length += tail.length;
        res.status(206);
        res.header(HeaderNames.CONTENT_TYPE, "multipart/byteranges; boundary=" + boundary);
        res.contentLength(length);
        try (OutputStream out = ResponseChannel.body(req, res, length)) {
            for (int i = 0; i < spans.size(); i++) {
                out.write(heads.get(i));
                if (i == 0) {
                    copy(key, first, spans.get(i), out);
                } else {
                    try (InputStream in = services.bucket().openRange(key, spans.get(i).start(), spans.get(i).length())) {
                        copy(key, in, spans.get(i), out);
                    }
                }
                out.write('\r');
                out.write('\n');
            }
            out.write(tail);
        }
        metrics.fetched(length);
    }

    private static void copy(String key, InputStream in, Span s, OutputStream out) throws IOException {
        if (out instanceof WritableByteChannel) {
            // The connection's channel (ChannelBodyStream): a bucket's stream can write itself there, a mapped range
            // of the local bucket without any copy (Bucket.openRange).
            long n = in.transferTo(out);
            if (n != s.length()) throw new IOException("object " + key + " ended early");
            return;
        }
        byte[] buf = new byte[(int) Math.min(COPY_BUFFER, s.length())];
        long left = s.length();
        while (left > 0) {
            int n = in.read(buf, 0, (int) Math.min(buf.length, left));
            if (n < 0) throw new IOException("object " + key + " ended early");
            out.write(buf, 0, n);
            left -= n;
        }
    }
}
