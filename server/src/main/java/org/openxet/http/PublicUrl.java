package org.openxet.http;

import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.ServerRequest;

import java.util.regex.Pattern;

/**
 * The base URL clients reach this server at: the configured public URL, else the Host header they used. Signed fetch
 * URLs and {@code casUrl} are built from it, so a Host header is taken only in a strict {@code host[:port]} form: a
 * DNS name, an IPv4 address or a bracketed IPv6 address, and a port of digits. Anything else (a path, a query, an
 * {@code @}, spaces) would let a request choose where the answer's URLs point: 400.
 */
final class PublicUrl {
    private static final Pattern HOST = Pattern.compile(
            "^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*"
                    + "|\\[[0-9A-Fa-f:.]{2,45}])(?::[0-9]{1,5})?$");

    private PublicUrl() {
    }

    static String of(ServerRequest req, String configured) throws HttpError {
        if (!configured.isEmpty()) {
            return configured.endsWith("/") ? configured.substring(0, configured.length() - 1) : configured;
        }
        String host = req.headers().first(HeaderNames.HOST).orElse("127.0.0.1:" + req.localPeer().port());
        if (!validHost(host)) {
            throw HttpError.badRequest("the Host header is not host[:port]; URLs cannot be built from it"
                    + " (an operator sets public.url to not depend on it)");
        }
        return "http://" + host;
    }

    static boolean validHost(String host) {
        return host.length() <= 261 && HOST.matcher(host).matches();
    }
}
