package org.openxet.service;

import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * What a path in a bucket repository and a repository id may be. A path is the key a client chose and the server
 * stores and compares as UTF-8 bytes, so whatever a client sends is checked once, here, before it reaches the index:
 * no empty segment (no leading, trailing or doubled '/'), no '.' or '..' segment (the clients turn paths into local
 * file names on download: {@code hf buckets sync}, {@code download_bucket_files}), no control character, valid
 * Unicode, at most {@link #MAX_BYTES} bytes.
 */
public final class BucketPaths {
    /** Longest path in UTF-8 bytes: what local file systems take as a whole path (PATH_MAX is 4096 on Linux). */
    public static final int MAX_BYTES = 1024;
    /**
     * A Hub repository id: a namespace and a name of letters, digits, '-', '_' and '.', neither '.' nor '..', each at
     * most 96 characters (the Hub's own limit on a name; without one, names of 16 KiB were stored and listed).
     */
    public static final Pattern REPO_ID =
            Pattern.compile("^(?!\\.\\.?/)[A-Za-z0-9._-]{1,96}/(?!\\.\\.?$)[A-Za-z0-9._-]{1,96}$");

    private BucketPaths() {
    }

    /** Why {@code path} is not a valid bucket path, or null when it is one. */
    public static String problem(String path) {
        if (path == null || path.isEmpty()) return "path is empty";
        if (path.startsWith("/") || path.endsWith("/")) return "path starts or ends with '/'";
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c < 0x20 || c == 0x7f) return "path holds a control character";
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= path.length() || !Character.isLowSurrogate(path.charAt(i + 1))) return "path is not valid Unicode";
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return "path is not valid Unicode";
            }
        }
        if (path.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) return "path is longer than " + MAX_BYTES + " bytes";
        for (String segment : path.split("/", -1)) {
            if (segment.isEmpty()) return "path has an empty segment";
            if (segment.equals(".") || segment.equals("..")) return "path has a '" + segment + "' segment";
        }
        return null;
    }

    public static boolean valid(String path) {
        return problem(path) == null;
    }

    /** The scope a repository's tokens carry: {@code buckets/alice/data} for the bucket {@code alice/data}. */
    public static String scope(String bucket) {
        return "buckets/" + bucket;
    }
}
