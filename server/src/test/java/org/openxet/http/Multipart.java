package org.openxet.http;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Parses a multipart/byteranges body (RFC 7233 / RFC 2046) the way a client would: by boundary and part headers. */
final class Multipart {
    private Multipart() {
    }

    static List<byte[]> parse(byte[] body, String boundary) {
        byte[] delimiter = ("--" + boundary).getBytes(StandardCharsets.US_ASCII);
        List<byte[]> parts = new ArrayList<>();
        int p = indexOf(body, delimiter, 0);
        while (p >= 0) {
            int afterDelimiter = p + delimiter.length;
            if (body[afterDelimiter] == '-' && body[afterDelimiter + 1] == '-') {
                break;
            }
            int headersEnd = indexOf(body, "\r\n\r\n".getBytes(StandardCharsets.US_ASCII), afterDelimiter);
            String headers = new String(body, afterDelimiter, headersEnd - afterDelimiter, StandardCharsets.US_ASCII);
            String range = headers.lines().filter(l -> l.toLowerCase().startsWith("content-range:")).findFirst().orElseThrow();
            String[] se = range.substring(range.indexOf("bytes ") + 6, range.indexOf('/')).split("-");
            int length = (int) (Long.parseLong(se[1]) - Long.parseLong(se[0]) + 1);
            int start = headersEnd + 4;
            parts.add(Arrays.copyOfRange(body, start, start + length));
            p = indexOf(body, delimiter, start + length);
        }
        return parts;
    }

    private static int indexOf(byte[] hay, byte[] needle, int from) {
        outer:
        for (int i = from; i <= hay.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) continue outer;
            }
            return i;
        }
        return -1;
    }
}
