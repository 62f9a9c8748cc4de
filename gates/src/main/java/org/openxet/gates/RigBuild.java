package org.openxet.gates;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.openxet.protocol.ClientUploads.Xorb;
import org.openxet.service.ServerConfig;
import org.openxet.service.Services;
import org.openxet.service.ShardRegistration;
import org.openxet.service.XorbIngest;
import org.openxet.storage.BulkLoader;
import org.openxet.storage.ShardCommit;
import org.openxet.storage.XorbLayout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Builds a {@link RigFixture} into a data dir: the schema and keys by opening it as a server would, shard 0's real
 * xorb and shard objects through the bucket, then every row through {@link BulkLoader}. One thread generates rows while
 * the other writes them. A build records itself in {@code rig-fixture.json}; a data dir whose record matches is used
 * as it is ({@code --keep}).
 */
final class RigBuild {
    private static final String RECORD = "rig-fixture.json";
    /**
     * What the rows of a fixture with the same parameters look like; a change to {@link RigFixture}'s rows raises it,
     * and a kept fixture of an older layout is refused, not measured. 2: the cold set's halves hold the shapes they
     * are named for (in layout 1, which recorded no layout, each half mixed both).
     */
    static final int LAYOUT = 2;

    private RigBuild() {
    }

    /** What was built: the parameters (for reuse), the time it took and the index's size on disk. */
    record Built(long files, long xorbs, long seed, int cold, String backend, double seconds, long indexBytes) {
        String json() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("layout", LAYOUT);
            m.put("files", files);
            m.put("xorbs", xorbs);
            m.put("seed", seed);
            m.put("cold", cold);
            m.put("backend", backend);
            m.put("fixture_build_s", Stats.r3(seconds));
            m.put("index_bytes", indexBytes);
            return Json.of(m);
        }
    }

    /** The fixture already in {@code data}, if it was built with these parameters. */
    static Built existing(Path data, RigFixture f, String backend) throws Exception {
        Path record = data.resolve(RECORD);
        if (!Files.exists(record)) return null;
        JsonNode built = new ObjectMapper().readTree(Files.readString(record));
        boolean same = built.path("layout").asInt(1) == LAYOUT && built.path("files").asLong() == f.files && built.path("xorbs").asLong() == f.xorbs()
                && built.path("seed").asLong() == f.seed && built.path("cold").asInt() == f.coldPerShape
                && built.path("backend").asText().equals(backend);
        return same ? new Built(f.files, f.xorbs(), f.seed, f.coldPerShape, backend,
                built.path("fixture_build_s").asDouble(), built.path("index_bytes").asLong()) : null;
    }

    /** The fixture kept in {@code data} ({@code --keep}), else built there; a kept dir holding another one is refused. */
    static Built existingOrBuild(RigFixture f, Path data, String indexUrl, boolean kept) throws Exception {
        Built built = existing(data, f, indexUrl == null ? "sqlite" : "postgres");
        if (built != null) {
            System.out.printf(java.util.Locale.ROOT, "fixture kept from an earlier run (built in %.1f s); index %,d bytes%n",
                    built.seconds(), built.indexBytes());
            return built;
        }
        Path record = data.resolve(RECORD);
        if (Files.exists(record)) {
            int layout = new ObjectMapper().readTree(Files.readString(record)).path("layout").asInt(1);
            if (layout != LAYOUT) {
                throw new IllegalStateException(data + " holds a rig fixture of layout " + layout + ", this rig builds "
                        + "layout " + LAYOUT + " (its cold set's halves each hold one shape): delete " + data
                        + (indexUrl == null ? "" : " and give an empty PostgreSQL database") + ", then run again");
            }
        }
        if (kept && Files.exists(data.resolve("index.sqlite"))) {
            throw new IllegalStateException(data + " holds an index that is not this fixture: give another --keep");
        }
        if (indexUrl != null && holdsXorbs(indexUrl)) {
            // Loading on top would fail at the first row with a duplicate key, in an error quoting megabytes of SQL.
            String holds = Files.exists(record) ? "a fixture built with " + Files.readString(record).strip()
                    : "and " + data + " records no fixture built there";
            throw new IllegalStateException("the PostgreSQL index " + ServerConfig.Storage.indexUrlForLogs(indexUrl)
                    + " already holds xorbs, " + holds + "; this run's is files " + f.files + ", seed " + f.seed
                    + ", cold " + f.coldPerShape + ": run with the --keep dir and options it was built with, or give "
                    + "an empty database");
        }
        System.out.println("building the fixture...");
        built = build(f, data, indexUrl);
        System.out.printf(java.util.Locale.ROOT, "fixture built in %.1f s; index %,d bytes%n", built.seconds(),
                built.indexBytes());
        return built;
    }

    /** Whether the database at {@code indexUrl} has any xorb row (false before its schema exists). */
    private static boolean holdsXorbs(String indexUrl) throws SQLException {
        try (Connection c = DriverManager.getConnection(indexUrl); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT EXISTS (SELECT 1 FROM xorbs)")) {
            return r.next() && r.getBoolean(1);
        } catch (SQLException e) {
            if ("42P01".equals(e.getSQLState())) return false; // undefined_table: a new database
            throw e;
        }
    }

    static Built build(RigFixture f, Path data, String indexUrl) throws Exception {
        long t0 = System.nanoTime();
        Files.createDirectories(data);
        ServerConfig config = ServerConfig.defaults(data);
        if (indexUrl != null) {
            config = config.withStorage(new ServerConfig.Storage(indexUrl, "", "", ServerConfig.Storage.EMBEDDED.s3Region()));
        }
        try (Services services = Services.open(config)) {
            for (Xorb x : f.realXorbs()) {
                services.bucket().put(XorbIngest.key(x.hash()), RigFixture.storedObject(x));
            }
            RigFixture.RealShard shard = f.realShard();
            services.bucket().put(ShardRegistration.key(shard.commit().shardHash()), shard.stored());
        }
        Progress progress = new Progress("rows", f.xorbs() + f.files + 2L * f.coldPerShape);
        BlockingQueue<Object> rows = new ArrayBlockingQueue<>(4096);
        Object end = new Object();
        Thread producer = Thread.ofPlatform().name("rig-rows").start(() -> {
            try {
                for (long j = 0; j < f.files; j++) rows.put(new SmallXorb(j, f.smallXorb(j)));
                for (int b = 0; b < RigFixture.BIG_XORBS; b++) rows.put(b);
                for (long s = 0; s < f.shards(); s++) rows.put(new Shard(s, f.shard(s)));
                rows.put(end);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try (BulkLoader loader = indexUrl == null ? BulkLoader.sqlite(data.resolve("index.sqlite"))
                : BulkLoader.postgres(indexUrl)) {
            long fileId = 1;
            for (Object row; (row = rows.take()) != end; ) {
                switch (row) {
                    case SmallXorb x -> {
                        loader.xorb(f.smallXorbId(x.j()), x.layout().hash(), x.layout().chunks(), x.layout().storedBytes());
                        progress.add(1);
                    }
                    case Integer b -> {
                        loader.xorb(f.bigXorbId(b), f.bigXorbs().hashes()[b], f.bigXorbs().tables()[b],
                                f.bigXorbs().storedBytes()[b]);
                        progress.add(1);
                    }
                    case Shard s -> {
                        loader.shard(s.s() + 1, s.commit(), fileId, f::xorbId);
                        fileId += s.commit().files().size();
                        progress.add(s.commit().files().size());
                    }
                    default -> throw new IllegalStateException("row " + row);
                }
            }
        } finally {
            producer.interrupt();
            producer.join();
        }
        progress.done();
        double seconds = (System.nanoTime() - t0) / 1e9;
        Built built = new Built(f.files, f.xorbs(), f.seed, f.coldPerShape, indexUrl == null ? "sqlite" : "postgres",
                seconds, indexBytes(data, indexUrl));
        Files.writeString(data.resolve(RECORD), built.json() + "\n");
        return built;
    }

    private record SmallXorb(long j, XorbLayout layout) {
    }

    private record Shard(long s, ShardCommit commit) {
    }

    static long indexBytes(Path data, String indexUrl) throws Exception {
        if (indexUrl == null) {
            long n = 0;
            for (Path p : indexFiles(data, null)) n += Files.size(p);
            return n;
        }
        try (Connection c = DriverManager.getConnection(indexUrl); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT pg_database_size(current_database())")) {
            r.next();
            return r.getLong(1);
        }
    }

    /**
     * The files that hold the index: SQLite's in the data directory, or the PostgreSQL database's own directory when
     * the server is local and this user may ask where it is (a superuser, as the tests' throwaway server gives);
     * empty when that cannot be known.
     */
    static List<Path> indexFiles(Path data, String indexUrl) {
        List<Path> files = new ArrayList<>();
        try {
            if (indexUrl == null) {
                for (String name : new String[]{"index.sqlite", "index.sqlite-wal"}) {
                    Path p = data.resolve(name);
                    if (Files.exists(p)) files.add(p);
                }
                return files;
            }
            Path dir;
            try (Connection c = DriverManager.getConnection(indexUrl); Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SELECT current_setting('data_directory'), d.oid FROM pg_database d"
                         + " WHERE d.datname = current_database()")) {
                if (!r.next()) return List.of();
                dir = Path.of(r.getString(1), "base", Long.toString(r.getLong(2)));
            }
            try (var listed = Files.list(dir)) {
                listed.filter(Files::isRegularFile).forEach(files::add);
            }
            return files;
        } catch (SQLException | java.io.IOException | RuntimeException e) {
            return List.of();
        }
    }

    /** A line every 5 s with the rate and the time left (a cron log or a terminal reads it the same). */
    static final class Progress {
        private final String what;
        private final long total;
        private final long start = System.nanoTime();
        private long done;
        private long lastLine = start;

        Progress(String what, long total) {
            this.what = what;
            this.total = total;
        }

        void add(long n) {
            done += n;
            long now = System.nanoTime();
            if (now - lastLine >= 5_000_000_000L) {
                lastLine = now;
                double s = (now - start) / 1e9;
                double rate = done / s;
                System.out.printf(java.util.Locale.ROOT, "  %s: %,d of %,d (%.0f%%), %,.0f/s, about %.0f s left%n",
                        what, done, total, 100.0 * done / total, rate, (total - done) / Math.max(rate, 1));
            }
        }

        void done() {
            System.out.printf(java.util.Locale.ROOT, "  %s: %,d in %.1f s%n", what, done, (System.nanoTime() - start) / 1e9);
        }
    }
}
