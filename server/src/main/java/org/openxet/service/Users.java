package org.openxet.service;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
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
 */
public final class Users {
    public static final String FILE = "users.json";
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

    private final Path file;
    private volatile List<User> users = List.of();
    private volatile FileTime loaded;

    public Users(Path dataDir) {
        this.file = dataDir.resolve(FILE);
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
    public User authenticate(String token) throws IOException {
        reloadIfChanged();
        String digest = sha256(token);
        for (User u : users) {
            if (MessageDigest.isEqual(digest.getBytes(StandardCharsets.US_ASCII), u.tokenSha256().getBytes(StandardCharsets.US_ASCII))) {
                return u;
            }
        }
        return null;
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
    public synchronized String add(String name, List<String> repos, Access access) throws IOException {
        List<User> all = new ArrayList<>(Files.exists(file) ? JSON.readValue(file.toFile(), UserFile.class).users() : List.of());
        all.removeIf(u -> u.name().equals(name));
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        // "hf_" because @huggingface/hub refuses access tokens without it; the rest says whose token it is.
        String token = "hf_openxet_" + Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
        all.add(new User(name, sha256(token), List.copyOf(repos), access.claim()));
        Files.createDirectories(file.getParent());
        Path tmp = file.resolveSibling(FILE + ".new");
        Files.deleteIfExists(tmp);
        Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        JSON.writerWithDefaultPrettyPrinter().writeValue(tmp.toFile(), new UserFile(all));
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        return token;
    }
}
