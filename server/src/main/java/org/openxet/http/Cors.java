package org.openxet.http;

import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.http.Status;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;

import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * CORS ({@code cors.origins}): @huggingface/hub runs in browsers too, and a page's call to openxet (a token route, a
 * xorb upload, a reconstruction, a signed fetch URL with its Range header) comes from another origin than openxet's,
 * so the browser sends it, or shows its answer, only with the server's consent. Every route takes its credential in
 * a header or in the URL, never from a cookie, so {@code *} (the default) lets a page do nothing a non-browser client
 * could not already do with the same token.
 *
 * <p>For an allowed origin: a preflight ({@code OPTIONS} with {@code Access-Control-Request-Method}) is answered 204
 * here, before routing; every other answer carries {@code Access-Control-Allow-Origin} and exposes the headers the
 * clients read. Any other {@code OPTIONS} goes on to the routes (a JSON 404, as the clients' v2-to-v1 fallback needs).
 */
final class Cors implements Filter {
    static final HeaderName REQUEST_METHOD = HeaderNames.create("Access-Control-Request-Method");
    static final HeaderName REQUEST_HEADERS = HeaderNames.create("Access-Control-Request-Headers");
    static final HeaderName ALLOW_ORIGIN = HeaderNames.create("Access-Control-Allow-Origin");
    static final HeaderName ALLOW_METHODS = HeaderNames.create("Access-Control-Allow-Methods");
    static final HeaderName ALLOW_HEADERS = HeaderNames.create("Access-Control-Allow-Headers");
    static final HeaderName EXPOSE_HEADERS = HeaderNames.create("Access-Control-Expose-Headers");
    static final HeaderName MAX_AGE = HeaderNames.create("Access-Control-Max-Age");
    static final String METHODS = "GET, HEAD, POST, PUT, DELETE";
    /**
     * What the clients read from answers besides the safelisted ones: huggingface.js {@code file-download-info.ts}
     * (resolve: {@code X-Xet-Hash}, {@code X-Linked-Size}, {@code Link}, {@code ETag}, {@code Content-Range},
     * {@code X-Error-Code}), {@code error.ts} ({@code X-Error-Message}), the header-era token route's {@code X-Xet-*}.
     */
    static final String EXPOSED = "Content-Range, Content-Length, Retry-After, ETag, Link, X-Error-Message,"
            + " X-Error-Code, X-Xet-Hash, X-Linked-Size, X-Linked-ETag, X-Xet-Cas-Url, X-Xet-Access-Token,"
            + " X-Xet-Token-Expiration, X-Xet-Refresh-Route";
    /** A list of header names as a preflight asks for them; anything else is not echoed back. */
    private static final Pattern HEADER_LIST =
            Pattern.compile("[A-Za-z0-9!#$%&'*+.^_`|~-]+(\\s*,\\s*[A-Za-z0-9!#$%&'*+.^_`|~-]+)*");
    /** How long a browser may keep a preflight's answer: a day (browsers cap it lower, Chrome at 2 h). */
    static final String PREFLIGHT_SECONDS = "86400";

    private final boolean any;
    private final List<String> origins;

    private Cors(List<String> origins) {
        this.any = origins.contains("*");
        this.origins = origins;
    }

    /** The filter for {@code origins} ({@code cors.origins}), or none when no origin is allowed. */
    static Optional<Filter> of(List<String> origins) {
        return origins.isEmpty() ? Optional.empty() : Optional.of(new Cors(origins));
    }

    @Override
    public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        Optional<String> origin = req.headers().first(HeaderNames.ORIGIN);
        if (origin.isEmpty() || !(any || origins.contains(origin.get()))) {
            chain.proceed();
            return;
        }
        res.header(ALLOW_ORIGIN, any ? "*" : origin.get());
        if (!any) res.header(HeaderNames.VARY, "Origin");
        if (req.prologue().method() == Method.OPTIONS && req.headers().contains(REQUEST_METHOD)) {
            res.header(ALLOW_METHODS, METHODS);
            req.headers().first(REQUEST_HEADERS).map(String::trim).filter(h -> HEADER_LIST.matcher(h).matches())
                    .ifPresent(h -> res.header(ALLOW_HEADERS, h));
            res.header(MAX_AGE, PREFLIGHT_SECONDS);
            res.status(Status.NO_CONTENT_204).send();
            return;
        }
        res.header(EXPOSE_HEADERS, EXPOSED);
        chain.proceed();
    }
}
