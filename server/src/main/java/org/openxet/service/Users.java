package org.openxet.service;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import org.openxet.storage.Index;
import org.openxet.storage.IndexException;
import org.openxet.storage.OwnerOnly;
import org.openxet.storage.StoredUser;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The operator's user tokens ({@code <data>/users.json}, mode 0600), which authenticate the Hub-style token routes
 * ({@code /api/{type}s/{repo}/xet-{read|write}-token/{rev}}): each user has allowed repository patterns and an access
 * level. Only a SHA-256 of each token is kept, so the file does not hold usable credentials. Edited by
 * {@code openxet user add} while the server runs; the server re-reads it when it changes.
 *
 * <p>Nodes sharing an index that {@linkplain Index#keepsUsers() keeps users} (PostgreSQL) keep them there instead, so a
 * user added on one node authenticates on all of them; each node re-reads the list at most every
 * {@link #SHARED_REFRESH}. A node's {@code users.json} from before is imported into the index at start
 * ({@link #importFile}), never overwriting a user of the same name.
 */
public final class Users {
    public static final String FILE = "users.json";
    /**
     * Present in the data dir of a node whose users live in its shared index, so that {@code openxet user add} run
     * there without the index's URL refuses to write a users.json the node would not read.
     */
    public static final String SHARED_MARKER = "USERS_IN_INDEX";
    private static final ObjectMapper JSON = new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);

    /** One user: repository patterns ({@code *} matches any characters) over scopes like {@code models/alice/x}. */
    public record User(String name, String tokenSha256, List<String> repos, String access) {
        public boolean allows(String scope, Access needed) {
            Access level = "write".equals(access) ? Access.WRITE : Access.READ;
            if (!level.allows(needed)) return false;
            for (String pattern : repos) {
                if (glob(pattern).matcher(scope).matches()) return true;
            }
            return false;
        }
    }

    record UserFile(List<User> users) {
    }

    /** How stale a node's copy of the shared users may be: a user added on another node works here after this. */
    public static final Duration SHARED_REFRESH = Duration.ofSeconds(1);
    /** An unknown token re-reads the shared users sooner, but at most this often (unknown tokens cost no more). */
    static final Duration SHARED_MISS_REFRESH = Duration.ofMillis(100);

    private final Path file;
    private final Index shared;
    private volatile List<User> users = List.of();
    private volatile FileTime loaded;
    private volatile long sharedReadAt;

    /** The data dir's users.json. */
    public Users(Path dataDir) {
        this(dataDir, null);
    }

    /** The users {@code index} keeps, when it {@linkplain Index#keepsUsers() keeps users}; else the data dir's file. */
    public Users(Path dataDir, Index index) {
        this.file = dataDir.resolve(FILE);
        this.shared = index != null && index.keepsUsers() ? index : null;
    }

    static Pattern glob(String pattern) {
        StringBuilder re = new StringBuilder();
        for (String part : pattern.split("\\*", -1)) {
            if (!re.isEmpty()) re.append(".*");
            re.append(Pattern.quote(part));
        }
        return Pattern.compile(re.toString());
    }

    static String sha256(String token) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The user owning {@code token}, or null. */
    public User authenticate(String token) throws IOException, IndexException {
        String digest = sha256(token);
        if (shared == null) {
            reloadIfChanged();
            return find(digest);
        }
        refreshShared(SHARED_REFRESH);
        User u = find(digest);
        if (u == null && refreshShared(SHARED_MISS_REFRESH)) {
            u = find(digest); // a user added a moment ago, maybe on another node
        }
        return u;
    }

    private User find(String digest) {
        for (User u : users) {
            if (MessageDigest.isEqual(digest.getBytes(StandardCharsets.US_ASCII), u.tokenSha256().getBytes(StandardCharsets.US_ASCII))) {
                return u;
            }
        }
        return null;
    }

    /** Re-reads the shared users if the copy is older than {@code maxAge}; true when it did. */
    private synchronized boolean refreshShared(Duration maxAge) throws IndexException {
        long t = System.nanoTime();
        if (sharedReadAt != 0 && t - sharedReadAt < maxAge.toNanos()) return false;
        users = shared.users().stream().map(u -> new User(u.name(), u.tokenSha256(), u.repos(), u.access())).toList();
        sharedReadAt = t;
        return true;
    }

    /** Leaves {@link #SHARED_MARKER} in the data dir when the users are shared, and removes it when they are not. */
    public void markWhereUsersLive() throws IOException {
        Path marker = file.resolveSibling(SHARED_MARKER);
        if (shared == null) {
            Files.deleteIfExists(marker);
        } else if (!Files.exists(marker)) {
            Files.writeString(marker, "This node keeps the users of its token routes in its shared PostgreSQL index, not in "
                    + FILE + ".\nAdd users with `openxet user add` given the node's --config or OPENXET_INDEX_URL.\n");
        }
    }

    /**
     * Copies the users of this data dir's users.json into the shared index, keeping any user the index has under the
     * same name (another node may have changed it since); returns how many were added. Nothing when the users are not
     * shared or there is no file.
     */
    public int importFile() throws IOException, IndexException {
        if (shared == null || !Files.exists(file)) return 0;
        int added = 0;
        for (User u : JSON.readValue(file.toFile(), UserFile.class).users()) {
            if (shared.putUser(new StoredUser(u.name(), u.tokenSha256(), u.repos(), u.access()), false)) added++;
        }
        return added;
    }

    private synchronized void reloadIfChanged() throws IOException {
        if (!Files.exists(file)) {
            users = List.of();
            loaded = null;
            return;
        }
        FileTime modified = Files.getLastModifiedTime(file);
        if (!modified.equals(loaded)) {
            users = List.copyOf(JSON.readValue(file.toFile(), UserFile.class).users());
            loaded = modified;
        }
    }

    /** Adds a user and returns its new token (shown once; only its hash is stored). */
    public synchronized String add(String name, List<String> repos, Access access) throws IOException, IndexException {
        String token = newToken();
        if (shared != null) {
            shared.putUser(new StoredUser(name, sha256(token), repos, access.claim()), true);
            refreshShared(Duration.ZERO);
            return token;
        }
        List<User> all = new ArrayList<>(Files.exists(file) ? JSON.readValue(file.toFile(), UserFile.class).users() : List.of());
        all.removeIf(u -> u.name().equals(name));
        all.add(new User(name, sha256(token), List.copyOf(repos), access.claim()));
        OwnerOnly.replace(file, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(new UserFile(all)));
        return token;
    }

    private static String newToken() {
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        // "hf_" because @huggingface/hub refuses access tokens without it; the rest says whose token it is.
        return "hf_openxet_" + Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
    }
}
