package org.openxet.service;

import org.openxet.storage.AuthStore;
import org.openxet.storage.FileAuthStore;
import org.openxet.storage.IndexException;
import org.openxet.storage.StoredUser;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The operator's user tokens, which authenticate the Hub-style token routes
 * ({@code /api/{type}s/{repo}/xet-{read|write}-token/{rev}}): each user has allowed repository patterns and an access
 * level. Only a SHA-256 of each token is kept, so the store holds no usable credentials. They live in an
 * {@link AuthStore}: the data dir's {@code users.json}, or for nodes sharing a PostgreSQL index that index, so a user
 * added on one node authenticates on all of them. Edited by {@code openxet user} while the server runs.
 *
 * <p>Revocation: {@code openxet user revoke} stops the user's token minting at once on every node, and the CAS tokens
 * already minted
 * for the user (they carry the user as {@code sub} and the user's generation) are refused by every node within
 * {@link #REFRESH}, the longest a node's copy of the users may be stale; {@code user reissue} gives the user a new
 * token, under which the old CAS tokens stay refused.
 */
public final class Users implements Tokens.Revocations {
    public static final String FILE = FileAuthStore.USERS;
    /**
     * Present in the data dir of a node whose users live in its shared index, so that {@code openxet user add} run
     * there without the index's URL refuses to write a users.json the node would not read.
     */
    public static final String SHARED_MARKER = "USERS_IN_INDEX";

    /** One user: repository patterns ({@code *} matches any characters) over scopes like {@code models/alice/x}. */
    public record User(StoredUser stored) {
        public String name() {
            return stored.name();
        }

        public Tokens.Subject subject() {
            return new Tokens.Subject(stored.name(), stored.generation());
        }

        public boolean allows(String scope, Access needed) {
            Access level = "write".equals(stored.access()) ? Access.WRITE : Access.READ;
            if (!level.allows(needed)) return false;
            for (String pattern : stored.repos()) {
                if (glob(pattern).matcher(scope).matches()) return true;
            }
            return false;
        }
    }

    /** How stale a node's copy of the users may be: a user added or revoked on another node counts here after this. */
    public static final Duration REFRESH = Duration.ofSeconds(1);
    /** The least time between two reads for CAS tokens naming a user (or generation) the copy does not know. */
    static final Duration MISS_REFRESH = Duration.ofMillis(100);

    private final Path dataDir;
    private final AuthStore store;
    private final RefreshedCopy<Map<String, StoredUser>> copy;

    /** The data dir's users.json. */
    public Users(Path dataDir) {
        this(dataDir, new FileAuthStore(dataDir));
    }

    public Users(Path dataDir, AuthStore store) {
        this.dataDir = dataDir;
        this.store = store;
        // Read on first use: the first token route call, or the first CAS token minted for a user.
        this.copy = new RefreshedCopy<>("users", this::byName, null, MISS_REFRESH);
    }

    private Map<String, StoredUser> byName() throws IndexException {
        Map<String, StoredUser> m = new HashMap<>();
        for (StoredUser u : store.users()) m.put(u.name(), u);
        return Map.copyOf(m);
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

    /** The user owning {@code token}, or null (also for a revoked user's token). */
    public User authenticate(String token) throws IndexException {
        // A copy read after the request arrived (a stat when a file is unchanged; requests at once share one read): a
        // user revoked a moment ago, maybe on another node, mints nothing. Token routes are asked about once an hour
        // per client; a store that cannot be read refuses rather than trust an old copy.
        Map<String, StoredUser> users;
        try {
            users = copy.readAfter(System.nanoTime());
        } catch (IndexException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        byte[] wanted = sha256(token).getBytes(StandardCharsets.US_ASCII);
        for (StoredUser u : users.values()) {
            if (MessageDigest.isEqual(wanted, u.tokenSha256().getBytes(StandardCharsets.US_ASCII))) {
                return u.revoked() ? null : new User(u);
            }
        }
        return null;
    }

    private Map<String, StoredUser> readNow() throws IndexException {
        try {
            return copy.readNow();
        } catch (IndexException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Whether CAS tokens minted for {@code name} in {@code generation} still stand: the user exists, is not revoked and
     * was not re-issued since. Asked on every request of such a token, so it reads the store at most every
     * {@link #REFRESH}; a store that cannot be read keeps the last copy (logged once) rather than refuse every token.
     */
    @Override
    public boolean current(String name, long generation) {
        long arrived = System.nanoTime();
        Map<String, StoredUser> users = copy.get(REFRESH);
        StoredUser u = users == null ? null : users.get(name);
        if (u == null || u.generation() < generation) {
            try {
                users = copy.readSince(arrived); // a user added or re-issued a moment ago, maybe on another node
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            u = users == null ? null : users.get(name);
        }
        return u != null && !u.revoked() && u.generation() <= generation;
    }

    /** Leaves {@link #SHARED_MARKER} in the data dir when the users are shared, and removes it when they are not. */
    public void markWhereUsersLive() throws IOException {
        Path marker = dataDir.resolve(SHARED_MARKER);
        if (!store.shared()) {
            Files.deleteIfExists(marker);
        } else if (!Files.exists(marker)) {
            Files.writeString(marker, "This node keeps the users of its token routes in its shared PostgreSQL index, not in "
                    + FILE + ".\nManage users with `openxet user` given the node's --config or OPENXET_INDEX_URL.\n");
        }
    }

    /**
     * Copies the users of this data dir's users.json into the shared store, keeping any user the store has under the
     * same name (another node may have changed it since); returns how many were added. Nothing when the users are not
     * shared or there is no file.
     */
    public int importFile() throws IndexException {
        if (!store.shared()) return 0;
        int added = 0;
        for (StoredUser u : new FileAuthStore(dataDir).users()) {
            if (store.putUser(u, false)) added++;
        }
        return added;
    }

    /**
     * Adds a user, or replaces one of the same name (whose CAS tokens are then refused, as after a re-issue), and
     * returns its new token (shown once; only its hash is stored).
     */
    public synchronized String add(String name, List<String> repos, Access access) throws IndexException {
        String token = newToken();
        StoredUser old = existing(name);
        store.putUser(new StoredUser(name, sha256(token), repos, access.claim(), old == null ? 0 : old.generation() + 1,
                false), true);
        readNow();
        return token;
    }

    /**
     * Revokes a user: its token mints nothing from now on, and the CAS tokens minted for it are refused within
     * {@link #REFRESH} on every node. False when there is no such user.
     */
    public synchronized boolean revoke(String name) throws IndexException {
        StoredUser u = existing(name);
        if (u == null) return false;
        store.putUser(new StoredUser(u.name(), u.tokenSha256(), u.repos(), u.access(), u.generation() + 1, true), true);
        readNow();
        return true;
    }

    /**
     * Gives a user (revoked or not) a new token and returns it; the old token and the CAS tokens minted with it stay
     * refused. Null when there is no such user.
     */
    public synchronized String reissue(String name) throws IndexException {
        StoredUser u = existing(name);
        if (u == null) return null;
        String token = newToken();
        store.putUser(new StoredUser(u.name(), sha256(token), u.repos(), u.access(), u.generation() + 1, false), true);
        readNow();
        return token;
    }

    /** Every user, as stored (token hashes only). */
    public List<StoredUser> list() throws IndexException {
        return store.users();
    }

    private StoredUser existing(String name) throws IndexException {
        return store.users().stream().filter(u -> u.name().equals(name)).findFirst().orElse(null);
    }

    private static String newToken() {
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        // "hf_" because @huggingface/hub refuses access tokens without it; the rest says whose token it is.
        return "hf_openxet_" + Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
    }
}
