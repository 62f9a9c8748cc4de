package org.openxet.http;

import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import org.openxet.service.Access;
import org.openxet.service.AuthException;
import org.openxet.service.BucketPaths;
import org.openxet.service.Services;
import org.openxet.service.Tokens;
import org.openxet.service.Users;

import java.net.URI;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Hub's CAS token routes (§8), served by openxet itself so a stock client can fetch and refresh tokens here:
 * {@code GET /api/{type}s/{repo_id}/xet-{read|write}-token[/{rev}][?create_pr=1]} answers the CAS connection both as
 * the JSON body {@code {"casUrl", "accessToken", "exp"}} and as the headers {@code X-Xet-Cas-Url},
 * {@code X-Xet-Access-Token} and {@code X-Xet-Token-Expiration}, with the same values: hf_xet and
 * {@code @huggingface/hub} read the body, {@code huggingface_hub} 0.30–1.18 reads the headers (as git-xet reads them
 * from the Hub's LFS batch answer): docs/DESIGN.md, "What the clients read".
 * For holders of an operator-issued user token ({@code openxet user add}, checked by {@link RouteTable}); the CAS
 * token's scope is {@code {type}s/{repo_id}} (e.g. {@code models/alice/llama}) whatever the revision: openxet has no
 * refs, so a revision, {@code None} (huggingface_hub's "a PR is being created") or {@code create_pr=1} neither narrows
 * nor widens it.
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

    /** The Hub's answer headers (huggingface_hub {@code constants.py}; git-xet {@code git_xet/src/constants.rs}). */
    static final HeaderName CAS_URL = HeaderNames.create("X-Xet-Cas-Url");
    static final HeaderName ACCESS_TOKEN = HeaderNames.create("X-Xet-Access-Token");
    static final HeaderName TOKEN_EXPIRATION = HeaderNames.create("X-Xet-Token-Expiration");
    /** The Hub's words for an unknown or revoked token (see {@link RouteTable#INVALID_CREDENTIALS}). */
    static final String INVALID_CREDENTIALS = RouteTable.INVALID_CREDENTIALS;

    private final Services services;

    TokenRoutes(Services services) {
        this.services = services;
    }

    void register(RouteTable routes) {
        routes.user(Method.GET, "/api/*", this::token);
    }

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
        if (id == null || !BucketPaths.REPO_ID.matcher(id).matches()) {
            throw HttpError.badRequest("malformed repository id in the path: " + raw);
        }
        return id;
    }

    private void token(ServerRequest req, ServerResponse res, Users.User user) throws Exception {
        Matcher m = PATH.matcher(req.path().rawPath());
        if (!m.matches()) {
            throw HttpError.notFound("no route for GET " + req.path().path());
        }
        String scope = m.group(1) + "/" + repoId(m.group(2));
        if (m.group(4) != null) {
            requireWellFormedRevision(m.group(4));
        }
        Access access = m.group(3).equals("write") ? Access.WRITE : Access.READ;
        if (!user.allows(scope, access)) {
            throw new AuthException("user " + user.name() + " has no " + access.claim() + " access to " + scope, true);
        }
        // The hour clients expect, unless the operator bounds every token's lifetime below it.
        Duration ttl = TTL.compareTo(services.tokens().maxLifetime()) <= 0 ? TTL : services.tokens().maxLifetime();
        Tokens.Minted token = services.tokens().issue(scope, access, ttl, user.subject());
        String casUrl = PublicUrl.of(req, services.config().publicUrl());
        res.header(CAS_URL, casUrl);
        res.header(ACCESS_TOKEN, token.token());
        res.header(TOKEN_EXPIRATION, Long.toString(token.expiresAt()));
        // A bearer credential: no shared cache or proxy may keep it.
        res.header(HeaderNames.CACHE_CONTROL, "no-store");
        JsonAnswer.send(res, 200, "{\"casUrl\":" + JsonAnswer.quote(casUrl) + ",\"accessToken\":" + JsonAnswer.quote(token.token())
                + ",\"exp\":" + token.expiresAt() + "}");
    }

    /**
     * A revision segment, percent-decoded as a path. Its value grants nothing (see the class comment); a segment that
     * does not decode ({@code %zz}, a lone {@code %}) or decodes to control characters is a malformed request.
     */
    private static void requireWellFormedRevision(String raw) throws HttpError {
        String rev;
        try {
            rev = URI.create("/" + raw).getPath().substring(1);
        } catch (IllegalArgumentException e) {
            rev = null;
        }
        if (rev == null || rev.isEmpty() || rev.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
            throw HttpError.badRequest("malformed revision in the path: " + raw);
        }
    }
}
