package org.openxet.http;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * A raw path tail percent-decoded as a path (not as a form: '+' stays '+'), strictly: a '%' not followed by two hex
 * digits or bytes that are not UTF-8 are a malformed request, never replaced. huggingface_hub quotes a bucket path with
 * {@code safe=""} (every '/' is {@code %2F}); huggingface.js sends it as it is: both decode to the same path.
 */
final class PercentDecoding {
    private PercentDecoding() {
    }

    static String path(String raw) throws HttpError {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                int hi = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
                int lo = hi >= 0 ? Character.digit(raw.charAt(i + 2), 16) : -1;
                if (lo < 0) throw HttpError.badRequest("malformed percent-encoding in the path");
                bytes.write(hi << 4 | lo);
                i += 2;
            } else if (c < 0x80) {
                bytes.write(c);
            } else {
                // A raw path is ASCII on the wire; anything else did not come from a client that encodes.
                throw HttpError.badRequest("the path holds a character that is not percent-encoded");
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
        } catch (CharacterCodingException e) {
            throw HttpError.badRequest("the path's percent-encoded bytes are not UTF-8");
        }
    }
}
