package org.openxet.http;

import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerResponse;

import java.nio.charset.StandardCharsets;

/** A small JSON answer, success or error, sent whole (the large reconstruction answers stream: AnswerWriter). */
final class JsonAnswer {
    private JsonAnswer() {
    }

    /** Sends {@code body} as the whole answer with {@code status}. */
    static void send(ServerResponse res, int status, String body) {
        res.status(Status.create(status));
        res.header(HeaderNames.CONTENT_TYPE, "application/json");
        res.send(body.getBytes(StandardCharsets.UTF_8));
    }

    /** {@code s} as a JSON string literal. */
    static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
