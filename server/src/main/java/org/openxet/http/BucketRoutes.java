package org.openxet.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import org.openxet.service.Access;
import org.openxet.service.AuthException;
import org.openxet.service.BucketBatch;
import org.openxet.service.BucketPaths;
import org.openxet.service.BucketTree;
import org.openxet.service.ServerConfig;
import org.openxet.service.Services;
import org.openxet.service.Users;
import org.openxet.storage.BucketRepos;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Hub's side of a bucket repository, so that the stock clients need nothing but openxet (docs/PROTOCOL.md §12):
 * create and info ({@code /api/buckets/{id}}), the NDJSON batch call, the tree listing, paths-info, and
 * {@code /buckets/{id}/resolve/{path}} with the Xet file headers. For the operator's users: a bucket the user's
 * patterns do not let it read is a 404 {@code RepoNotFound}, exactly as one that does not exist; reading is enough
 * for the listings and resolve, the batch and create need write access (403 otherwise).
 */
final class BucketRoutes {
    /** The bucket id in a raw path: ids never need escapes, so the raw segments are the id. */
    private static final Pattern ID = Pattern.compile("^/(?:api/)?buckets/([^/]+)/([^/]+)(?:/.*)?$");
    private static final Pattern TREE_PREFIX = Pattern.compile("^/api/buckets/[^/]+/[^/]+/tree(?:/(.*))?$");
    private static final Pattern NAMESPACE = Pattern.compile("^/api/buckets/([^/]+)/?$");
    /** Buckets one listing page names ({@code GET /api/buckets/{namespace}}), then {@code Link: rel="next"}. */
    static final int LIST_PAGE = 500;
    private static final Pattern RESOLVE_PATH = Pattern.compile("^/buckets/[^/]+/[^/]+/resolve/(.+)$");
    /** Paths one paths-info call may ask about: what huggingface_hub sends ({@code _BUCKET_PATHS_INFO_BATCH_SIZE}). */
    static final int MAX_PATHS_INFO = 1000;
    /** A create's body holds a few flags. */
    private static final long MAX_CREATE_BODY = 64 * 1024;
    private static final String FILE_INFO = "application/vnd.xet-fileinfo+json";
    static final HeaderName XET_HASH = HeaderNames.create("X-Xet-Hash");
    static final HeaderName LINKED_SIZE = HeaderNames.create("X-Linked-Size");
    static final HeaderName REFRESH_ROUTE = HeaderNames.create("X-Xet-Refresh-Route");

    private final Services services;
    private final Bodies bodies;
    private final BodyBudget budget;
    private final ServerConfig.BucketLimits limits;
    private final BucketBatch batch;
    private final BucketTree tree;

    BucketRoutes(Services services, Bodies bodies, BodyBudget budget) {
        this.services = services;
        this.bodies = bodies;
        this.budget = budget;
        this.limits = services.config().bucketLimits();
        this.batch = new BucketBatch(services.index(), services.bucketChanges(), services.clock(), limits.lines());
        this.tree = new BucketTree(services.index().bucketRepos());
    }

    /** Registered before {@link TokenRoutes}, whose {@code GET /api/*} would take these paths otherwise. */
    void register(RouteTable routes) {
        routes.user(Method.GET, "/api/whoami-v2", this::whoami);
        routes.user(Method.GET, "/api/buckets/{namespace}", this::list);
        routes.user(Method.POST, "/api/buckets/{namespace}/{name}", this::create);
        routes.user(Method.GET, "/api/buckets/{namespace}/{name}", this::info);
        routes.user(Method.DELETE, "/api/buckets/{namespace}/{name}", this::delete);
        routes.user(Method.POST, "/api/buckets/{namespace}/{name}/batch", this::batch);
        routes.user(Method.POST, "/api/buckets/{namespace}/{name}/paths-info", this::pathsInfo);
        routes.user(Method.GET, "/api/buckets/{namespace}/{name}/tree", this::tree);
        routes.user(Method.GET, "/api/buckets/{namespace}/{name}/tree/*", this::tree);
        routes.user(Method.GET, "/buckets/{namespace}/{name}/resolve/*", this::resolve);
        routes.user(Method.HEAD, "/buckets/{namespace}/{name}/resolve/*", this::resolve);
    }

    /** The bucket id of the request, once the user may access it as {@code needed}. */
    private static String bucket(ServerRequest req, Users.User user, Access needed) throws HttpError, AuthException {
        Matcher m = ID.matcher(req.path().rawPath());
        if (!m.matches()) throw HttpError.badRequest("malformed bucket id in the path");
        return allowed(m.group(1) + "/" + m.group(2), user, needed);
    }

    private static String allowed(String id, Users.User user, Access needed) throws HttpError, AuthException {
        if (!BucketPaths.REPO_ID.matcher(id).matches()) {
            throw HttpError.badRequest("malformed bucket id in the path: " + id);
        }
        String scope = BucketPaths.scope(id);
        if (!user.allows(scope, Access.READ)) throw HttpError.repoNotFound("bucket " + id + " not found");
        if (!user.allows(scope, needed)) {
            throw new AuthException("user " + user.name() + " has no " + needed.claim() + " access to " + scope, true);
        }
        return id;
    }

    private BucketRepos repos() {
        return services.index().bucketRepos();
    }

    private BucketRepos.Info existing(String id) throws Exception {
        return repos().info(id).orElseThrow(() -> HttpError.repoNotFound("bucket " + id + " not found"));
    }

    private String base(ServerRequest req) throws HttpError {
        return PublicUrl.of(req, services.config().publicUrl());
    }

    private void create(ServerRequest req, ServerResponse res, Users.User user) throws Exception {
        Matcher m = ID.matcher(req.path().rawPath());
        if (!m.matches()) throw HttpError.badRequest("malformed bucket id in the path");
        // huggingface_hub create_bucket("name") asks for the namespace "me": the caller's own.
        String namespace = m.group(1).equals("me") ? user.name() : m.group(1);
        String id = allowed(namespace + "/" + m.group(2), user, Access.WRITE);
        boolean isPrivate = true;
        try (Bodies.Body body = bodies.read(req, MAX_CREATE_BODY, budget)) {
            if (body.length() > 0) {
                JsonNode o = BucketJson.read(body.data(), body.length());
                // huggingface_hub sends {"private": bool}, huggingface.js {"visibility": "private"|"public"}.
                if (o.path("private").isBoolean()) isPrivate = o.get("private").asBoolean();
                if (o.path("visibility").isTextual()) isPrivate = !o.get("visibility").asText().equals("public");
            }
        }
        String url = base(req) + "/buckets/" + id;
        if (repos().create(id, isPrivate, services.clock().millis(), services.bucketChanges()::write)) {
            JsonAnswer.send(res, 200, BucketJson.created(url, id));
        } else {
            // huggingface_hub create_bucket(exist_ok=True) passes on a 409.
            res.header(Errors.ERROR_MESSAGE, "bucket " + id + " already exists");
            JsonAnswer.send(res, 409, BucketJson.exists(url, id));
        }
    }

    /**
     * The user behind the token, as the Hub's {@code /api/whoami-v2} answers it: huggingface_hub reads {@code name}
     * ({@code hf auth whoami}, {@code login}; every {@code namespace = whoami()["name"]}), {@code orgs[].name} and
     * {@code auth.accessToken.role}/{@code displayName}; huggingface.js {@code whoAmI} the same object.
     */
    private void whoami(ServerRequest req, ServerResponse res, Users.User user) throws Exception {
        JsonAnswer.send(res, 200, BucketJson.whoami(user.name(), user.stored().access()));
    }

    /**
     * huggingface_hub {@code list_buckets} ({@code hf buckets list}): {@code GET /api/buckets/{namespace}} ({@code me}:
     * the caller's), {@code search} a substring of the name, each item a {@code BucketInfo}, paged by
     * {@code Link: rel="next"} ({@code paginate}). Only the buckets the user may read: another user's namespace lists
     * as empty, as the Hub lists no private bucket of others.
     */
    private void list(ServerRequest req, ServerResponse res, Users.User user) throws Exception {
        Matcher m = NAMESPACE.matcher(req.path().rawPath());
        if (!m.matches()) throw HttpError.badRequest("malformed namespace in the path");
        String namespace = m.group(1).equals("me") ? user.name() : m.group(1);
        if (!BucketPaths.REPO_ID.matcher(namespace + "/x").matches()) {
            throw HttpError.badRequest("malformed namespace in the path: " + namespace);
        }
        String search = req.query().first("search").orElse("").toLowerCase(java.util.Locale.ROOT);
        String after = req.query().first("cursor").orElse("");
        List<BucketRepos.Info> page = repos().list(namespace, after, LIST_PAGE);
        List<BucketRepos.Info> shown = new ArrayList<>();
        for (BucketRepos.Info i : page) {
            if (user.allows(BucketPaths.scope(i.name()), Access.READ)
                    && i.name().substring(namespace.length() + 1).toLowerCase(java.util.Locale.ROOT).contains(search)) {
                shown.add(i);
            }
        }
        if (page.size() == LIST_PAGE) {
            String next = base(req) + req.path().rawPath() + "?cursor="
                    + java.net.URLEncoder.encode(page.getLast().name(), java.nio.charset.StandardCharsets.UTF_8)
                    + (search.isEmpty() ? "" : "&search=" + java.net.URLEncoder.encode(search,
                    java.nio.charset.StandardCharsets.UTF_8));
            res.header(HeaderNames.create("Link"), "<" + next + ">; rel=\"next\"");
        }
        JsonAnswer.send(res, 200, BucketJson.infos(shown));
    }

    /**
     * huggingface_hub {@code delete_bucket} ({@code hf buckets delete}; {@code missing_ok} passes on a 404) and
     * huggingface.js {@code deleteRepo} of a bucket ({@code res.ok}): the bucket and its paths go, recorded as any
     * write; its files stay (no file record is ever removed).
     */
    private void delete(ServerRequest req, ServerResponse res, Users.User user) throws Exception {
        String id = bucket(req, user, Access.WRITE);
        if (!repos().delete(id, services.clock().millis(), services.bucketChanges()::write)) {
            throw HttpError.repoNotFound("bucket " + id + " not found");
        }
        JsonAnswer.send(res, 200, "{}");
    }

    private void info(ServerRequest req, ServerResponse res, Users.User user) throws Exception {
        JsonAnswer.send(res, 200, BucketJson.info(existing(bucket(req, user, Access.READ))));
    }

    /**
     * 200 when every line succeeded, else 422 with the same body: huggingface.js reads {@code failed} from either
     * ({@code commit.ts} throws on any other status), huggingface_hub raises on the 422 ({@code hf_raise_for_status}).
     */
    private void batch(ServerRequest req, ServerResponse res, Users.User user) throws Exception {
        String id = bucket(req, user, Access.WRITE);
        BucketBatch.Result result;
        try (Bodies.Body body = bodies.read(req, limits.bodyBytes(), budget)) {
            result = batch.apply(id, user, body.data(), body.length());
        } catch (BucketBatch.Refused e) {
            throw e.tooLarge() ? new HttpError(413, "payload_too_large", e.getMessage()) : HttpError.badRequest(e.getMessage());
        }
        JsonAnswer.send(res, result.success() ? 200 : 422, BucketJson.batch(result));
    }

    /** {@code {"paths": [...]}}, at most {@link #MAX_PATHS_INFO}: the files among them, missing ones left out. */
    private void pathsInfo(ServerRequest req, ServerResponse res, Users.User user) throws Exception {
        String id = bucket(req, user, Access.READ);
        List<String> paths = new ArrayList<>();
        try (Bodies.Body body = bodies.read(req, limits.bodyBytes(), budget)) {
            for (String p : BucketJson.paths(body.data(), body.length(), MAX_PATHS_INFO)) {
                // A path that is not valid cannot be in the bucket: it is left out as a missing one is.
                if (BucketPaths.valid(p)) paths.add(p);
            }
        }
        existing(id);
        JsonAnswer.send(res, 200, BucketJson.files(repos().lookup(id, paths)));
    }

    private void tree(ServerRequest req, ServerResponse res, Users.User user) throws Exception {
        String id = bucket(req, user, Access.READ);
        Matcher m = TREE_PREFIX.matcher(req.path().rawPath());
        String prefix = m.matches() && m.group(1) != null ? PercentDecoding.path(m.group(1)) : "";
        while (prefix.endsWith("/")) prefix = prefix.substring(0, prefix.length() - 1);
        if (!prefix.isEmpty() && !BucketPaths.valid(prefix)) {
            throw HttpError.badRequest("malformed prefix: " + BucketPaths.problem(prefix));
        }
        boolean recursive = flag(req, "recursive");
        existing(id);
        BucketTree.Page page;
        try {
            page = tree.list(id, prefix, recursive, req.query().first("cursor").orElse(null));
        } catch (BucketTree.BadCursor e) {
            throw HttpError.badRequest(e.getMessage());
        }
        if (page.next() != null) {
            // GitHub-style paging (huggingface_hub utils/_pagination.py; huggingface.js parseLinkHeader wants "; rel").
            String next = base(req) + req.path().rawPath() + "?recursive=" + recursive + "&expand="
                    + flag(req, "expand") + "&cursor=" + page.next();
            res.header(HeaderNames.create("Link"), "<" + next + ">; rel=\"next\"");
        }
        JsonAnswer.send(res, 200, BucketJson.tree(page.items()));
    }

    /** huggingface.js sends {@code recursive=true}, huggingface_hub (httpx) {@code true}, older ones {@code True}. */
    private static boolean flag(ServerRequest req, String name) {
        String v = req.query().first(name).orElse("false");
        return v.equalsIgnoreCase("true") || v.equals("1");
    }

    /**
     * The Xet file info of a bucket path, in the headers both clients read: {@code X-Xet-Hash}, {@code X-Linked-Size}
     * and {@code ETag}, and a {@code Link} to the reconstruction (the v1 URL: huggingface.js rewrites it to v2) and to
     * the bucket's read-token route ({@code xet-auth}, which both clients call with the user's own token). A HEAD
     * (huggingface_hub {@code get_bucket_file_metadata}) has the size as {@code Content-Length}; a GET answers the
     * file info as JSON when asked for it (huggingface.js {@code fileDownloadInfo}), and 406 otherwise: openxet does
     * not stream file bytes itself, the clients read them through the reconstruction.
     */
    private void resolve(ServerRequest req, ServerResponse res, Users.User user) throws Exception {
        String id = bucket(req, user, Access.READ);
        Matcher m = RESOLVE_PATH.matcher(req.path().rawPath());
        String path = m.matches() ? PercentDecoding.path(m.group(1)) : "";
        existing(id);
        BucketRepos.Entry entry = BucketPaths.valid(path)
                ? repos().lookup(id, List.of(path)).stream().findFirst().orElse(null) : null;
        if (entry == null) throw HttpError.entryNotFound("no file " + path + " in bucket " + id);
        String base = base(req);
        String refresh = base + "/api/buckets/" + id + "/xet-read-token";
        String reconstruction = base + "/v1/reconstructions/" + entry.xetHash().hex();
        res.header(XET_HASH, entry.xetHash().hex());
        res.header(LINKED_SIZE, Long.toString(entry.size()));
        res.header(HeaderNames.ETAG, "\"" + entry.xetHash().hex() + "\"");
        res.header(REFRESH_ROUTE, refresh);
        res.header(HeaderNames.create("Link"),
                "<" + reconstruction + ">; rel=\"xet-reconstruction-info\", <" + refresh + ">; rel=\"xet-auth\"");
        if (req.prologue().method() == Method.HEAD) {
            res.status(200);
            res.header(HeaderNames.CONTENT_LENGTH, Long.toString(entry.size()));
            res.send();
            return;
        }
        String accept = req.headers().first(HeaderNames.ACCEPT).orElse("");
        if (!accept.contains(FILE_INFO)) {
            throw new HttpError(406, "not_acceptable", "openxet serves bucket files through Xet only: ask with Accept: "
                    + FILE_INFO + " and read the bytes through the reconstruction in the Link header");
        }
        res.status(200);
        res.header(HeaderNames.CONTENT_TYPE, FILE_INFO);
        res.send(BucketJson.fileInfo(entry, refresh, reconstruction).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
}
