package org.openxet.storage;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * The users and signing keys of a node of its own, in its data dir: {@code users.json} and {@code keys.json}, both
 * mode 0600 and replaced atomically. The CLI writes them while the server runs; a read parses a file again only when
 * it was replaced since (its inode and time differ), so the server can ask every second for the price of a stat.
 * Read-modify-write holds {@link #LOCK} so two commands run at once lose neither change.
 */
public final class FileAuthStore implements AuthStore {
    public static final String USERS = "users.json";
    public static final String KEYS = "keys.json";
    static final String LOCK = ".auth.lock";
    private static final ObjectMapper JSON = new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);

    @JsonIgnoreProperties(ignoreUnknown = true)
    record UserFile(List<StoredUser> users) {
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    record KeyFile(List<StoredKey> keys) {
    }

    private final Path dir;
    private final Cached<UserFile> users;
    private final Cached<KeyFile> keys;

    public FileAuthStore(Path dataDir) {
        this.dir = dataDir;
        this.users = new Cached<>(dataDir.resolve(USERS), UserFile.class);
        this.keys = new Cached<>(dataDir.resolve(KEYS), KeyFile.class);
    }

    @Override
    public boolean shared() {
        return false;
    }

    @Override
    public List<StoredUser> users() throws IndexException {
        UserFile f = users.read();
        return f == null || f.users() == null ? List.of() : List.copyOf(f.users());
    }

    @Override
    public boolean putUser(StoredUser user, boolean replace) throws IndexException {
        return update(users, f -> {
            List<StoredUser> all = new ArrayList<>(f == null || f.users() == null ? List.of() : f.users());
            if (!replace && all.stream().anyMatch(u -> u.name().equals(user.name()))) return null;
            all.removeIf(u -> u.name().equals(user.name()));
            all.add(user);
            return new UserFile(all);
        });
    }

    @Override
    public List<StoredKey> keys() throws IndexException {
        KeyFile f = keys.read();
        return f == null || f.keys() == null ? List.of() : List.copyOf(f.keys());
    }

    @Override
    public boolean putKey(StoredKey key, boolean replace) throws IndexException {
        return update(keys, f -> {
            List<StoredKey> all = new ArrayList<>(f == null || f.keys() == null ? List.of() : f.keys());
            boolean exists = all.stream().anyMatch(k -> k.kid().equals(key.kid()));
            if (exists && !replace) return null;
            if (exists) {
                all.replaceAll(k -> k.kid().equals(key.kid()) ? key : k);
            } else {
                all.add(key);
            }
            return new KeyFile(all);
        });
    }

    /** Applies {@code change} to the file's content under the lock; a null result leaves the file alone (false). */
    private <T> boolean update(Cached<T> file, UnaryOperator<T> change) throws IndexException {
        try (FileChannel ch = FileChannel.open(dir.resolve(LOCK), java.util.Set.of(StandardOpenOption.CREATE,
                StandardOpenOption.WRITE), OwnerOnly.FILE);
             FileLock ignored = ch.lock()) {
            T next = change.apply(file.read());
            if (next == null) return false;
            OwnerOnly.replace(file.path, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(next));
            return true;
        } catch (IOException e) {
            throw new IndexException("cannot write " + file.path + ": " + e.getMessage(), e);
        }
    }

    /** A file's parsed content, parsed again only when the file was replaced. */
    private static final class Cached<T> {
        final Path path;
        final Class<T> type;
        private Object stamp;
        private T value;

        Cached(Path path, Class<T> type) {
            this.path = path;
            this.type = type;
        }

        synchronized T read() throws IndexException {
            try {
                BasicFileAttributes a;
                try {
                    a = Files.readAttributes(path, BasicFileAttributes.class);
                } catch (NoSuchFileException e) {
                    stamp = null;
                    value = null;
                    return null;
                }
                List<Object> now = java.util.Arrays.asList(a.fileKey(), a.lastModifiedTime(), a.size());
                if (!Objects.equals(now, stamp)) {
                    value = JSON.readValue(path.toFile(), type);
                    stamp = now;
                }
                return value;
            } catch (IOException e) {
                throw new IndexException("cannot read " + path + ": " + e.getMessage(), e);
            }
        }
    }
}
