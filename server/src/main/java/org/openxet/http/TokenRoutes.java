package org.openxet.http;

import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import org.openxet.service.Access;
import org.openxet.service.AuthException;
import org.openxet.service.Grant;
import org.openxet.service.Services;
import org.openxet.service.Users;

import java.net.URI;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Hub's CAS token routes (§8), served by openxet itself so a stock client can fetch and refresh tokens here:
 * {@code GET /api/{type}s/{repo_id}/xet-{read|write}-token/{rev}} → {@code {"casUrl", "accessToken", "exp"}}.
 * Authenticated by an operator-issued user token ({@code openxet user add}); the CAS token's scope is
 * {@code {type}s/{repo_id}} (e.g. {@code models/alice/llama}). The revision is accepted and ignored: tokens are per
 * repository.
 */
final class TokenRoutes {
    /** Clients refresh 30 s before expiry (§7); an hour keeps refreshes rare. */
    static final Duration TTL = Duration.ofHours(1);
    /**
     * Matched against the raw (still percent-encoded) path: hf_xet encodes the revision into one path component
     * ({@code refs/pr/1} arrives as {@code refs%2Fpr%2F1}, {@code hub_client/client.rs}), which the decoded path would
     * split. The revision is optional: the JS client's bucket flow asks without one.
     */
    private static final Pattern PATH = Pattern.compile("^/api/(models|datasets|spaces|buckets)/(.+?)/xet-(read|write)-token(?:/([^/]+))?$");

    private final Services services;
    private final Users users;

    TokenRoutes(Services services) {
        this.services = services;
        this.users = new Users(services.config().dataDir(), services.index());
    }

    void register(RouteTable routes) {
        routes.add(Method.GET, "/api/*", RouteTable.Guard.USER, this::token);
    }

    /** A Hub repository id: a namespace and a name of letters, digits, '-', '_' and '.', not a '.' or '..' segment. */
    private static final Pattern REPO_ID = Pattern.compile("^(?!\\.\\.?/)[A-Za-z0-9._-]+/(?!\\.\\.?$)[A-Za-z0-9._-]+$");

    /**
     * The repository id of a matched raw path, percent-decoded as a path (not as a form: '+' stays '+'). Ids never need
     * escapes, so one whose decoded form is not a plain {@code namespace/name} is refused: the scope a token is minted
     * for must be exactly the repository the user's patterns allowed.
     */
    private static String repoId(String raw) throws HttpError {
        String id;
        try {
            id = URI.create(raw).getPath();
        } catch (IllegalArgumentException e) {
            id = null;
        }
        if (id == null || !REPO_ID.matcher(id).matches()) {
            throw HttpError.badRequest("malformed repository id in the path: " + raw);
        }
        return id;
    }

    private void token(ServerRequest req, ServerResponse res, Grant unused) throws Exception {
        Matcher m = PATH.matcher(req.path().rawPath());
        if (!m.matches()) {
            throw HttpError.notFound("no route for GET " + req.path().path());
        }
        String header = req.headers().first(HeaderNames.AUTHORIZATION).orElse("");
        if (!header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            throw new AuthException("missing bearer user token", false);
        }
        Users.User user = users.authenticate(header.substring(7).trim());
        if (user == null) {
            throw new AuthException("unknown user token", false);
        }
        String scope = m.group(1) + "/" + repoId(m.group(2));
        Access access = m.group(3).equals("write") ? Access.WRITE : Access.READ;
        if (!user.allows(scope, access)) {
            throw new AuthException("user " + user.name() + " has no " + access.claim() + " access to " + scope, true);
        }
        String token = services.tokens().mint(scope, access, TTL);
        long exp = services.clock().millis() / 1000 + TTL.toSeconds();
        String casUrl = PublicUrl.of(req, services.config().publicUrl());
        Errors.sendJson(res, 200, "{\"casUrl\":" + Errors.quote(casUrl) + ",\"accessToken\":" + Errors.quote(token)
                + ",\"exp\":" + exp + "}");
    }
}
