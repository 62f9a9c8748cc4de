package org.openxet.service;

import org.openxet.storage.BucketRepos;
import org.openxet.storage.BucketRepos.Entry;
import org.openxet.storage.IndexException;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * A bucket's tree listing ({@code GET /api/buckets/{id}/tree[/{prefix}]}), a page at a time in path (byte) order:
 * files, and each directory once, where its first file would sort. The prefix is a directory (a prefix naming a file
 * lists that file). Without {@code recursive} only the prefix's direct children are listed: after a directory the
 * listing seeks past everything under it ({@code dir0} follows {@code dir/} in byte order), so a page costs at most one
 * query per entry however large the subtrees it skips. After such a seek the next query asks for one row, and each
 * query that meets no directory asks for twice as many as the last, so a page reads a few rows an entry. (Asking for
 * the whole rest of the page after every seek read up to half a million rows for a page of 1,000 directories of 1,000
 * files each, one row used of each query's up to 1,000.) The cursor of the next page says where to resume; it holds a
 * path, so it reveals nothing the caller could not list.
 */
public final class BucketTree {
    /** Entries a page holds (a recursive page may add the directories of its last file). */
    public static final int PAGE = 1000;

    /** A file ({@code entry} non-null) or a directory. */
    public record Item(String path, Entry entry) {
        public boolean directory() {
            return entry == null;
        }
    }

    /** One page and the cursor of the next, or null when this is the last. */
    public record Page(List<Item> items, String next) {
    }

    /** A cursor that is not one this listing handed out for this prefix. */
    public static final class BadCursor extends Exception {
        BadCursor(String message) {
            super(message);
        }
    }

    private final BucketRepos repos;
    private final int pageSize;

    public BucketTree(BucketRepos repos) {
        this(repos, PAGE);
    }

    BucketTree(BucketRepos repos, int pageSize) {
        this.repos = repos;
        this.pageSize = pageSize;
    }

    /** Where a page resumes: at {@code key} itself or after it. */
    private record Resume(String key, boolean inclusive) {
        String encode() {
            return Base64.getUrlEncoder().withoutPadding()
                    .encodeToString(((inclusive ? "i" : "x") + key).getBytes(StandardCharsets.UTF_8));
        }
    }

    /**
     * The page of {@code bucket} under {@code prefix} ("" for the root; already a valid path otherwise) that starts at
     * {@code cursor} (null: the first page).
     */
    public Page list(String bucket, String prefix, boolean recursive, String cursor) throws IndexException, BadCursor {
        String base = prefix.isEmpty() ? "" : prefix + "/";
        // Everything under base/ sorts below base0: '0' is the byte after '/'.
        String below = prefix.isEmpty() ? null : prefix + "0";
        List<Item> items = new ArrayList<>();
        Resume at;
        if (cursor == null) {
            at = new Resume(base, true);
            if (!prefix.isEmpty()) {
                for (Entry e : repos.lookup(bucket, List.of(prefix))) items.add(new Item(e.path(), e));
            }
        } else {
            at = decode(cursor, base);
        }
        String lastFile = at.inclusive() ? null : at.key();
        int batch = pageSize;
        while (items.size() < pageSize) {
            int want = Math.min(pageSize - items.size(), batch);
            List<Entry> rows = repos.range(bucket, at.key(), at.inclusive(), below, want);
            int consumed = 0;
            boolean seek = false;
            for (Entry e : rows) {
                consumed++;
                String rel = e.path().substring(base.length());
                int slash = rel.indexOf('/');
                if (recursive || slash < 0) {
                    if (recursive) addDirectories(items, base, rel, lastFile);
                    items.add(new Item(e.path(), e));
                    lastFile = e.path();
                    at = new Resume(e.path(), false);
                } else {
                    String dir = base + rel.substring(0, slash);
                    items.add(new Item(dir, null));
                    at = new Resume(dir + "0", true);
                    seek = true;
                    break;
                }
                if (items.size() >= pageSize) break;
            }
            if (!seek && consumed == rows.size() && rows.size() < want) {
                // The range answered fewer rows than asked, and all were listed: nothing is left.
                return new Page(items, null);
            }
            batch = seek ? 1 : Math.min(pageSize, 2 * batch);
        }
        boolean more = !repos.range(bucket, at.key(), at.inclusive(), below, 1).isEmpty();
        return new Page(items, more ? at.encode() : null);
    }

    /** The directories above {@code rel} (relative to {@code base}) that are not above {@code previous} too. */
    private static void addDirectories(List<Item> items, String base, String rel, String previous) {
        for (int slash = rel.indexOf('/'); slash >= 0; slash = rel.indexOf('/', slash + 1)) {
            String dir = base + rel.substring(0, slash);
            if (previous == null || !previous.startsWith(dir + "/")) items.add(new Item(dir, null));
        }
    }

    private static Resume decode(String cursor, String base) throws BadCursor {
        String raw;
        try {
            raw = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new BadCursor("cursor is not one this listing handed out");
        }
        if (raw.length() < 2 || (raw.charAt(0) != 'i' && raw.charAt(0) != 'x') || !raw.startsWith(base, 1)) {
            throw new BadCursor("cursor is not one this listing handed out for this prefix");
        }
        return new Resume(raw.substring(1), raw.charAt(0) == 'i');
    }
}
