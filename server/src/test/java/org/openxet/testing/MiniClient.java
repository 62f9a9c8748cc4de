package org.openxet.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.openxet.protocol.ByteGrouping4;
import org.openxet.protocol.Lz4;
import org.openxet.protocol.Lz4FrameDecoder;
import org.openxet.protocol.xorb.XorbFormat;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Arrays;

/**
 * A small Xet download client for tests, written from docs/PROTOCOL.md (§5.4, §5.5, §5.8), independent of the server
 * code: asks for a reconstruction, fetches each term's bytes through the signed URL of the descriptor that holds it,
 * decodes the chunk records and assembles the requested bytes.
 */
public final class MiniClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final TestServer server;
    private final String token;

    public MiniClient(TestServer server, String token) {
        this.server = server;
        this.token = token;
    }

    public record Answer(int status, JsonNode json, String body) {
    }

    public Answer reconstruction(int version, String fileId, String range) throws Exception {
        HttpRequest.Builder b = server.request("/v" + version + "/reconstructions/" + fileId, token).GET();
        if (range != null) b.header("Range", range);
        HttpResponse<String> r = server.send(b.build());
        return new Answer(r.statusCode(), r.statusCode() == 200 ? JSON.readTree(r.body()) : null, r.body());
    }

    /** Downloads {@code [start, endInclusive]} (null range = whole file) through the v1 or v2 API. */
    public byte[] download(int version, String fileId, String range) throws Exception {
        Answer a = reconstruction(version, fileId, range);
        if (a.status() != 200) throw new AssertionError("reconstruction " + a.status() + ": " + a.body());
        byte[] data = assemble(version, a.json());
        // Like the clients, cut the last term at the requested end: answers hold whole chunks.
        if (range != null && range.matches("bytes=\\d+-\\d+")) {
            String[] se = range.substring(6).split("-");
            long wanted = Long.parseLong(se[1]) - Long.parseLong(se[0]) + 1;
            if (wanted < data.length) data = Arrays.copyOf(data, (int) wanted);
        }
        return data;
    }

    public byte[] assemble(int version, JsonNode answer) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long skip = answer.get("offset_into_first_range").asLong();
        for (JsonNode term : answer.get("terms")) {
            String xorb = term.get("hash").asText();
            int cs = term.get("range").get("start").asInt();
            int ce = term.get("range").get("end").asInt();
            byte[] data = termBytes(version, answer, xorb, cs, ce);
            if (data.length != term.get("unpacked_length").asInt()) {
                throw new AssertionError("term unpacked_length " + term.get("unpacked_length") + " but chunks hold " + data.length);
            }
            int from = (int) Math.min(skip, data.length);
            skip -= from;
            out.write(data, from, data.length - from);
        }
        return out.toByteArray();
    }

    /** Finds the descriptor holding chunks [cs, ce) and decodes exactly those chunks. */
    private byte[] termBytes(int version, JsonNode answer, String xorb, int cs, int ce) throws Exception {
        if (version == 2) {
            for (JsonNode entry : answer.get("xorbs").get(xorb)) {
                for (JsonNode r : entry.get("ranges")) {
                    int s = r.get("chunks").get("start").asInt();
                    int e = r.get("chunks").get("end").asInt();
                    if (s <= cs && ce <= e) {
                        return slice(fetch(entry.get("url").asText(), r.get("bytes")), s, cs, ce);
                    }
                }
            }
        } else {
            for (JsonNode entry : answer.get("fetch_info").get(xorb)) {
                int s = entry.get("range").get("start").asInt();
                int e = entry.get("range").get("end").asInt();
                if (s <= cs && ce <= e) {
                    return slice(fetch(entry.get("url").asText(), entry.get("url_range")), s, cs, ce);
                }
            }
        }
        throw new AssertionError("no fetch descriptor holds chunks [" + cs + ", " + ce + ") of " + xorb);
    }

    public byte[] fetch(String url, JsonNode bytes) throws Exception {
        long start = bytes.get("start").asLong();
        long end = bytes.get("end").asLong();
        HttpResponse<byte[]> r = server.sendBytes(HttpRequest.newBuilder(URI.create(url))
                .header("Range", "bytes=" + start + "-" + end).GET().build());
        if (r.statusCode() != 206 || r.body().length != end - start + 1) {
            throw new AssertionError("fetch " + r.statusCode() + ", " + r.body().length + " bytes for " + start + "-" + end);
        }
        return r.body();
    }

    /** Decodes the chunk records of a fetched range that starts at chunk {@code first}, keeping chunks [cs, ce). */
    static byte[] slice(byte[] records, int first, int cs, int ce) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int p = 0;
        try (Lz4FrameDecoder lz4 = Lz4.newDecoder()) {
            for (int k = first; k < ce; k++) {
                int clen = XorbFormat.u24(records, p + 1);
                int scheme = records[p + 4];
                int ulen = XorbFormat.u24(records, p + 5);
                byte[] chunk = new byte[ulen];
                switch (scheme) {
                    case 0 -> System.arraycopy(records, p + 8, chunk, 0, ulen);
                    case 1 -> lz4.decodeFrame(records, p + 8, clen, chunk, 0, ulen);
                    case 2 -> {
                        byte[] grouped = new byte[ulen];
                        lz4.decodeFrame(records, p + 8, clen, grouped, 0, ulen);
                        ByteGrouping4.regroup(grouped, 0, ulen, chunk, 0);
                    }
                    default -> throw new AssertionError("scheme " + scheme);
                }
                if (k >= cs) out.write(chunk);
                p += 8 + clen;
            }
        }
        return out.toByteArray();
    }

    public static byte[] range(byte[] data, long start, long endInclusive) {
        return Arrays.copyOfRange(data, (int) start, (int) Math.min(data.length, endInclusive + 1));
    }
}
