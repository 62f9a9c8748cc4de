package org.openxet.service;

import org.openxet.storage.AuthStore;
import org.openxet.storage.Bucket;
import org.openxet.storage.FileAuthStore;
import org.openxet.storage.Index;
import org.openxet.storage.IndexException;
import org.openxet.storage.LocalBucket;
import org.openxet.storage.PageCachePreload;
import org.openxet.storage.PostgresIndex;
import org.openxet.storage.S3Bucket;
import org.openxet.storage.SqliteIndex;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Everything a running server needs, wired once from its configuration: storage (index + bucket), keys, and the
 * services the HTTP routes call. Tests build one on a temp directory; {@code openxet serve} builds one on the data dir.
 */
public final class Services implements AutoCloseable {
    /** The embedded index's file in the data dir (SQLite adds {@code -wal} and {@code -shm} beside it). */
    public static final String SQLITE_INDEX = "index.sqlite";
    private final ServerConfig config;
    private final Secrets secrets;
    private final Index index;
    private final Bucket bucket;
    private final Tokens tokens;
    private final Users users;
    private final KeySet keys;
    private final XorbIngest ingest;
    private final Registrations registrations;
    private final BucketChanges bucketChanges;
    private final ShardRegistration shards;
    private final Clock clock;
    private final Readiness readiness;
    private final Liveness liveness;

    private Services(ServerConfig config, Secrets secrets, Index index, Bucket bucket, Users users, KeySet keys, Clock clock) {
        this.config = config;
        this.secrets = secrets;
        this.index = index;
        this.bucket = bucket;
        this.clock = clock;
        this.users = users;
        this.keys = keys;
        this.tokens = new Tokens(keys, config.auth(), users, clock);
        this.ingest = new XorbIngest(bucket, index);
        this.registrations = new Registrations(bucket);
        this.bucketChanges = new BucketChanges(bucket);
        this.shards = new ShardRegistration(bucket, index, registrations, config.commitPermits(), clock);
        this.readiness = new Readiness(index, bucket);
        this.liveness = new Liveness(index);
    }

    /**
     * The embedded defaults: SQLite at {@code <data>/index.sqlite}, a local bucket at {@code <data>/bucket}. With
     * {@code index.url} set, the index is in PostgreSQL, shared with the other nodes; with {@code bucket.url} set, the
     * blobs live in that S3 bucket instead (checked reachable before anything is served).
     */
    public static Services open(ServerConfig config) throws IOException, IndexException {
        Path data = config.dataDir();
        Secrets secrets = Secrets.loadOrCreate(data);
        Index index = openIndex(config, config.indexReaders());
        Bucket bucket;
        Users users;
        KeySet keys;
        try {
            requireSharedKeys(index, secrets, data);
            AuthStore auth = authStore(index, data);
            // A node that kept its users in users.json before its index was shared hands them to the other nodes.
            users = new Users(data, auth);
            users.importFile();
            users.markWhereUsersLive();
            keys = KeySet.open(auth, secrets, Clock.systemUTC());
            bucket = openBucket(config, true);
        } catch (IOException | IndexException | RuntimeException e) {
            index.close();
            throw e;
        }
        return new Services(config, secrets, index, bucket, users, keys, Clock.systemUTC());
    }

    /** Where users and signing keys live: the shared index's store, or the data dir's files for a node of its own. */
    public static AuthStore authStore(Index index, Path dataDir) {
        return index.shared().map(org.openxet.storage.SharedIndex::authStore).orElseGet(() -> new FileAuthStore(dataDir));
    }

    /** The index and the bucket alone, for a tool that reads them beside a running server ({@code fsck}). */
    public record Stores(Index index, Bucket bucket) implements AutoCloseable {
        @Override
        public void close() {
            index.close();
        }
    }

    /** Opens the configured index and bucket as {@link #open} does, with nothing else (no keys, users or recovery). */
    public static Stores openStores(ServerConfig config) throws IOException, IndexException {
        Index index = openIndex(config, 1);
        try {
            // Beside a running server: its uploads' temp files stay.
            return new Stores(index, openBucket(config, false));
        } catch (IOException | RuntimeException e) {
            index.close();
            throw e;
        }
    }

    /** SQLite at {@code <data>/index.sqlite}, or PostgreSQL with as many connections as SQLite opens (one more). */
    private static Index openIndex(ServerConfig config, int readers) throws IndexException {
        String url = config.storage().indexUrl();
        return url.isEmpty() ? new SqliteIndex(config.dataDir().resolve(SQLITE_INDEX), readers)
                : new PostgresIndex(url, readers + 1);
    }

    /** {@code <data>/bucket}, its owner's or a view beside its server ({@link LocalBucket#beside}), or the S3 bucket. */
    private static Bucket openBucket(ServerConfig config, boolean owner) throws IOException {
        ServerConfig.Storage storage = config.storage();
        if (!storage.bucketUrl().isEmpty()) {
            return S3Bucket.open(storage.bucketUrl(), storage.s3Endpoint(), storage.s3Region());
        }
        Path root = config.dataDir().resolve("bucket");
        return owner ? new LocalBucket(root) : LocalBucket.beside(root);
    }

    /** This node's keys are not the ones the other nodes sharing its index hold. */
    public static final class KeysDiffer extends IOException {
        KeysDiffer(Path dataDir) {
            super("the token and URL keys in " + dataDir.resolve(Secrets.FILE) + " differ from those of the other nodes "
                    + "sharing this index, which would refuse this node's tokens and signed URLs: copy "
                    + Secrets.FILE + " from a node of the index (docs/DESIGN.md, \"PostgreSQL index\")");
        }
    }

    /** Behind a load balancer every node must accept every node's tokens and URLs, so a node with other keys stays down. */
    public static void requireSharedKeys(Index index, Secrets secrets, Path dataDir) throws IndexException, KeysDiffer {
        byte[] mine = secrets.fingerprint();
        byte[] recorded = index.shared().isPresent() ? index.shared().get().keyFingerprint(mine) : mine;
        if (!java.util.Arrays.equals(mine, recorded)) {
            throw new KeysDiffer(dataDir);
        }
    }

    public ServerConfig config() {
        return config;
    }

    public Secrets secrets() {
        return secrets;
    }

    public Index index() {
        return index;
    }

    public Bucket bucket() {
        return bucket;
    }

    public Tokens tokens() {
        return tokens;
    }

    public Users users() {
        return users;
    }

    public KeySet keys() {
        return keys;
    }

    public XorbIngest ingest() {
        return ingest;
    }

    public ShardRegistration shards() {
        return shards;
    }

    public Registrations registrations() {
        return registrations;
    }

    public BucketChanges bucketChanges() {
        return bucketChanges;
    }

    public Clock clock() {
        return clock;
    }

    /**
     * Reads a SQLite index into the page cache for at most {@code warmup.index-preload} ({@link PageCachePreload}):
     * empty when that is {@code 0s} or the index is PostgreSQL's.
     */
    public Optional<PageCachePreload.Result> preloadIndex() throws IOException {
        Duration limit = config.indexPreload();
        if (limit.isZero() || !config.storage().indexUrl().isEmpty()) return Optional.empty();
        Path file = config.dataDir().resolve(SQLITE_INDEX);
        List<Path> files = List.of(file, file.resolveSibling(SQLITE_INDEX + "-wal"));
        return Optional.of(PageCachePreload.run(files, limit, PageCachePreload.availableMemory().orElse(Long.MAX_VALUE)));
    }

    public Liveness liveness() {
        return liveness;
    }

    public Readiness readiness() {
        return readiness;
    }

    @Override
    public void close() {
        index.close();
        try {
            registrations.close();
            bucketChanges.close();
            bucket.close();
        } catch (IOException ignored) {
            // nothing buffered: every put and every registration record is durable when it returns
        }
    }
}
