package org.openxet.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.openxet.service.BucketBatch;
import org.openxet.service.BucketTree;
import org.openxet.storage.BucketRepos;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/**
 * The JSON of the bucket routes, field by field as the clients read it (docs/PROTOCOL.md §12): huggingface_hub
 * {@code _buckets.py} {@code BucketInfo}, {@code BucketFile}, {@code BucketFolder}; huggingface.js
 * {@code list-files.ts} {@code ListFileEntry}, {@code paths-info.ts} {@code PathInfo}, {@code commit.ts} (the batch
 * answer's {@code failed[].path}).
 */
final class BucketJson {
    private static final ObjectMapper JSON = new ObjectMapper();
    /**
     * huggingface_hub {@code utils/_datetime.py} {@code parse_datetime} takes exactly {@code %Y-%m-%dT%H:%M:%S.%fZ}
     * (a missing fraction is tolerated): always milliseconds and a Z.
     */
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(ZoneOffset.UTC);

    private BucketJson() {
    }

    static String time(long epochMillis) {
        return TIME.format(Instant.ofEpochMilli(epochMillis));
    }

    static String info(BucketRepos.Info info) {
        return write(infoNode(info));
    }

    /** {@code list_buckets}: an array of {@code BucketInfo}. */
    static String infos(List<BucketRepos.Info> infos) {
        ArrayNode a = JSON.createArrayNode();
        for (BucketRepos.Info i : infos) a.add(infoNode(i));
        return write(a);
    }

    /**
     * {@code /api/whoami-v2} for an openxet user: a user of no organisation whose token is an access token of the
     * user's access level (huggingface_hub {@code _login.py} reads {@code auth.accessToken.role} and
     * {@code displayName}, {@code cli/auth.py} {@code name} and {@code orgs[].name}; huggingface.js
     * {@code who-am-i.ts} {@code WhoAmIUser} and {@code AuthInfo}).
     */
    static String whoami(String name, String access) {
        ObjectNode o = JSON.createObjectNode();
        o.put("type", "user");
        o.put("id", name);
        o.put("name", name);
        o.put("fullname", name);
        o.putNull("email");
        o.put("emailVerified", false);
        o.put("isPro", false);
        o.putArray("orgs");
        o.put("canPay", false);
        o.put("avatarUrl", "");
        o.putNull("periodEnd");
        ObjectNode auth = o.putObject("auth");
        auth.put("type", "access_token");
        ObjectNode token = auth.putObject("accessToken");
        token.put("displayName", "openxet-" + name);
        token.put("role", "write".equals(access) ? "write" : "read");
        return write(o);
    }

    private static ObjectNode infoNode(BucketRepos.Info info) {
        ObjectNode o = JSON.createObjectNode();
        o.put("id", info.name());
        o.put("private", info.isPrivate());
        o.put("createdAt", time(info.createdAt()));
        o.put("size", info.size());
        o.put("totalFiles", info.totalFiles());
        return o;
    }

    private static ObjectNode file(BucketRepos.Entry e) {
        ObjectNode o = JSON.createObjectNode();
        o.put("type", "file");
        o.put("path", e.path());
        o.put("size", e.size());
        o.put("xetHash", e.xetHash().hex());
        o.put("mtime", time(e.mtime()));
        o.put("uploadedAt", time(e.uploadedAt()));
        if (e.contentType() != null) o.put("contentType", e.contentType());
        return o;
    }

    static String files(List<BucketRepos.Entry> entries) {
        ArrayNode a = JSON.createArrayNode();
        for (BucketRepos.Entry e : entries) a.add(file(e));
        return write(a);
    }

    static String tree(List<BucketTree.Item> items) {
        ArrayNode a = JSON.createArrayNode();
        for (BucketTree.Item i : items) {
            if (i.directory()) {
                ObjectNode o = JSON.createObjectNode();
                o.put("type", "directory");
                o.put("path", i.path());
                a.add(o);
            } else {
                a.add(file(i.entry()));
            }
        }
        return write(a);
    }

    static String batch(BucketBatch.Result r) {
        ObjectNode o = JSON.createObjectNode();
        o.put("success", r.success());
        o.put("processed", r.processed());
        o.put("succeeded", r.succeeded());
        ArrayNode failed = o.putArray("failed");
        for (BucketBatch.Failure f : r.failed()) {
            ObjectNode x = failed.addObject();
            x.put("path", f.path());
            x.put("error", f.error());
        }
        return write(o);
    }

    /** The answer to a create: the bucket's URL (huggingface_hub {@code BucketUrl}) and its id (huggingface.js). */
    static String created(String url, String id) {
        ObjectNode o = JSON.createObjectNode();
        o.put("url", url);
        o.put("id", id);
        return write(o);
    }

    /** A create of a bucket that exists: the error body, and its URL as for a create. */
    static String exists(String url, String id) {
        ObjectNode o = JSON.createObjectNode();
        o.put("error", "conflict");
        o.put("message", "bucket " + id + " already exists");
        o.put("url", url);
        o.put("id", id);
        return write(o);
    }

    /** The body of a resolve asked for {@code application/vnd.xet-fileinfo+json}. */
    static String fileInfo(BucketRepos.Entry e, String refreshUrl, String reconstructionUrl) {
        ObjectNode o = JSON.createObjectNode();
        o.put("hash", e.xetHash().hex());
        o.put("size", e.size());
        o.put("refreshUrl", refreshUrl);
        o.put("reconstructionUrl", reconstructionUrl);
        return write(o);
    }

    /**
     * The strings of a paths-info body's {@code "paths"} array, at most {@code max}, read as a stream: a tree of the
     * whole body would cost 20 to 30 times its bytes in objects outside the upload budget (16 MiB of {@code "a",}
     * is about 5 million nodes), and the cap is checked as the array is read, not after. Other members are skipped
     * unread.
     */
    static List<String> paths(byte[] data, int length, int max) throws HttpError {
        String shape = "the body must be {\"paths\": [...]}";
        List<String> paths = null;
        try (JsonParser p = JSON.getFactory().createParser(data, 0, length)) {
            if (p.nextToken() != JsonToken.START_OBJECT) throw HttpError.badRequest(shape);
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (!name.equals("paths") || paths != null) {
                    p.skipChildren();
                    continue;
                }
                if (value != JsonToken.START_ARRAY) throw HttpError.badRequest(shape);
                paths = new ArrayList<>();
                for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
                    if (t != JsonToken.VALUE_STRING) throw HttpError.badRequest("every path must be a string");
                    if (paths.size() == max) {
                        throw HttpError.badRequest("at most " + max + " paths in one paths-info call");
                    }
                    paths.add(p.getText());
                }
            }
            if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null) throw HttpError.badRequest(shape);
        } catch (java.io.IOException e) {
            throw HttpError.badRequest("the body is not JSON");
        }
        if (paths == null) throw HttpError.badRequest(shape);
        return paths;
    }

    static com.fasterxml.jackson.databind.JsonNode read(byte[] data, int length) throws HttpError {
        try {
            return JSON.readTree(data, 0, length);
        } catch (java.io.IOException e) {
            throw HttpError.badRequest("the body is not JSON");
        }
    }

    private static String write(Object node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
