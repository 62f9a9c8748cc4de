package org.openxet.http;

import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import org.openxet.service.Access;
import org.openxet.service.AuthException;
import org.openxet.service.Grant;
import org.openxet.service.Tokens;
import org.openxet.service.Users;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Every route is registered here with who may call it, so a route cannot exist without a declared guard (a test walks
 * {@link #routes()} and checks each one over HTTP). The table checks the credential before the handler runs and hands
 * it the caller, typed by the guard: nothing for a public route, the verified {@link Grant} of a CAS token, the
 * authenticated {@link Users.User} of a Hub-style route. Exceptions become JSON errors in {@link Errors}.
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
        /** A user token from the operator's users (the Hub-style token routes). */
        USER
    }

    public record Route(Method method, String path, Guard guard) {
    }

    /** A route anyone may call. */
    public interface PublicHandler {
        void handle(ServerRequest req, ServerResponse res) throws Exception;
    }

    /** A route for holders of a CAS token: it gets the token's verified grant. */
    public interface CasHandler {
        void handle(ServerRequest req, ServerResponse res, Grant grant) throws Exception;
    }

    /** A Hub-style route for the operator's users: it gets the user the bearer token belongs to. */
    public interface UserHandler {
        void handle(ServerRequest req, ServerResponse res, Users.User user) throws Exception;
    }

    /**
     * The Hub's words for an unknown or revoked token. huggingface_hub's {@code hf_raise_for_status} reports any other
     * 401 on a repository route as "Repository Not Found"; with these words as {@code X-Error-Message} it says the
     * credentials are wrong instead.
     */
    static final String INVALID_CREDENTIALS = "Invalid credentials in Authorization header";

    private final HttpRouting.Builder routing;
    private final Tokens tokens;
    private final Users users;
    private final ServerMetrics metrics;
    private final List<Route> routes = new ArrayList<>();

    public RouteTable(HttpRouting.Builder routing, Tokens tokens, Users users, ServerMetrics metrics) {
        this.routing = routing;
        this.tokens = tokens;
        this.users = users;
        this.metrics = metrics;
    }

    public List<Route> routes() {
        return List.copyOf(routes);
    }

    /** A route anyone may call. */
    public void open(Method method, String path, PublicHandler handler) {
        add(method, path, Guard.PUBLIC, (req, res) -> handler.handle(req, res));
    }

    /** A route for CAS tokens that grant at least {@code needed}. */
    public void cas(Method method, String path, Access needed, CasHandler handler) {
        add(method, path, needed == Access.WRITE ? Guard.WRITE : Guard.READ,
                (req, res) -> {
                    Grant grant = tokens.verify(bearer(req, "missing bearer token"));
                    Tokens.require(grant, needed);
                    handler.handle(req, res, grant);
                });
    }

    /** A Hub-style route for the operator's users. */
    public void user(Method method, String path, UserHandler handler) {
        add(method, path, Guard.USER, (req, res) -> {
            Users.User user = users.authenticate(bearer(req, "missing bearer user token"));
            if (user == null) {
                throw new AuthException(INVALID_CREDENTIALS, false);
            }
            handler.handle(req, res, user);
        });
    }

    private void add(Method method, String path, Guard guard, PublicHandler guarded) {
        routes.add(new Route(method, path, guard));
        String methodName = method.text();
        routing.route(method, path, (req, res) -> {
            long start = System.nanoTime();
            try {
                guarded.handle(req, res);
                endIfBodyUnread(req);
            } catch (Throwable t) {
                Errors.send(req, res, t);
            } finally {
                // Handlers write their whole answer before returning, so this is the time to its last byte.
                metrics.request(methodName, path, res.status().code(), System.nanoTime() - start);
            }
        });
    }

    /**
     * A body the route answered without reading (any body sent to {@code GET /health}): the connection ends after the
     * answer, through {@link Lingering}'s bounded read. Left to Helidon, the body would be read to its declared end
     * with no time limit to keep the connection, so a request declaring 60 MB and sending none held its connection
     * and thread for as long as the client liked. (A refusal's unread body is ended the same way, in {@link Errors}.)
     */
    private static void endIfBodyUnread(ServerRequest req) {
        if (Lingering.bodyLeft(req)) {
            Lingering.close(req, "request body left unread after the answer");
        }
    }

    /** The bearer credential of the request's Authorization header. */
    private static String bearer(ServerRequest req, String missing) throws AuthException {
        String header = req.headers().first(HeaderNames.AUTHORIZATION).orElse(null);
        if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            throw new AuthException(missing, false);
        }
        return header.substring(7).trim();
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
