package org.openxet.http;

import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.ServerRequest;

/** The base URL clients reach this server at: the configured public URL, else the Host header they used. */
final class PublicUrl {
    private PublicUrl() {
    }

    static String of(ServerRequest req, String configured) {
        if (!configured.isEmpty()) {
            return configured.endsWith("/") ? configured.substring(0, configured.length() - 1) : configured;
        }
        String host = req.headers().first(HeaderNames.HOST).orElse("127.0.0.1:" + req.localPeer().port());
        return "http://" + host;
    }
}
