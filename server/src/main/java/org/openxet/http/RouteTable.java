package org.openxet.http;

import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import org.openxet.service.Access;
import org.openxet.service.AuthException;
import org.openxet.service.Grant;
import org.openxet.service.IssuerUnavailable;
import org.openxet.service.Tokens;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Every route is registered here with the access it needs, so a route cannot exist without a declared scope (a test
 * walks {@link #routes()} and checks each one over HTTP). Handlers get the verified {@link Grant}; exceptions become
 * JSON errors in {@link Errors}.
 */
public final class RouteTable {
    /** Who may call a route. */
    public enum Guard {
        /** No credential: health, and signed fetch URLs whose credential is in the URL itself. */
        PUBLIC,
        /** A CAS token of any level. */
        READ,
        /** A CAS write token. */
        WRITE,
        /** A user token from the operator's user file (the Hub-style token routes). */
        USER
    }

    public record Route(Method method, String path, Guard guard) {
    }

    /** A route handler that receives the caller's grant (null for PUBLIC and USER routes). */
    public interface GrantedHandler {
        void handle(ServerRequest req, ServerResponse res, Grant grant) throws Exception;
    }

    private final HttpRouting.Builder routing;
    private final Tokens tokens;
    private final ServerMetrics metrics;
    private final List<Route> routes = new ArrayList<>();

    public RouteTable(HttpRouting.Builder routing, Tokens tokens, ServerMetrics metrics) {
        this.routing = routing;
        this.tokens = tokens;
        this.metrics = metrics;
    }

    public List<Route> routes() {
        return List.copyOf(routes);
    }

    public void add(Method method, String path, Guard guard, GrantedHandler handler) {
        routes.add(new Route(method, path, guard));
        String methodName = method.text();
        routing.route(method, path, (req, res) -> {
            long start = System.nanoTime();
            try {
                Grant grant = switch (guard) {
                    case PUBLIC, USER -> null;
                    case READ -> authorize(req, Access.READ);
                    case WRITE -> authorize(req, Access.WRITE);
                };
                handler.handle(req, res, grant);
            } catch (Throwable t) {
                Errors.send(req, res, t);
            } finally {
                // Handlers write their whole answer before returning, so this is the time to its last byte.
                metrics.request(methodName, path, res.status().code(), System.nanoTime() - start);
            }
        });
    }

    private Grant authorize(ServerRequest req, Access needed) throws AuthException, IssuerUnavailable {
        String header = req.headers().first(HeaderNames.AUTHORIZATION).orElse(null);
        if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            throw new AuthException("missing bearer token", false);
        }
        Grant grant = tokens.verify(header.substring(7).trim());
        Tokens.require(grant, needed);
        return grant;
    }

    /** Anything no route matched (any method, any path): a JSON 404, never 405 — clients fall back to v1 only on 404. */
    public void fallback() {
        routing.any((req, res) -> {
            long start = System.nanoTime();
            String method = req.prologue().method().text();
            try {
                Errors.send(req, res, HttpError.notFound("no route for " + method + " " + req.path().path()));
            } finally {
                // Any method string a client sends would be a new time series: count the standard ones by name.
                String tag = KNOWN_METHODS.contains(method) ? method : "other";
                metrics.request(tag, ServerMetrics.UNMATCHED, res.status().code(), System.nanoTime() - start);
            }
        });
    }

    private static final Set<String> KNOWN_METHODS =
            Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE", "CONNECT");
}
