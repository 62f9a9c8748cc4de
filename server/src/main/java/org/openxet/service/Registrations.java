package org.openxet.service;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import org.openxet.protocol.MerkleHash;
import org.openxet.storage.Bucket;
import org.openxet.storage.Index;
import org.openxet.storage.IndexException;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;

/**
 * The bucket's own record of who registered each shard, durable before the registration is acknowledged. With the
 * xorb and shard objects it makes the bucket self-sufficient: {@code openxet index rebuild} recreates a lost index
 * from the bucket alone, every file in the scopes that registered it and no other (a shard object does not say which
 * scope sent it).
 *
 * <p>A record is one JSON line {@code {"shard", "scope", "registered_at"}}. A local bucket appends them to one log per
 * server process ({@code registrations/log-<start millis>-<pid>-<random>}), each registration waiting for a flush that it
 * shares with every registration in flight (a group commit). An object per record cost a quarter of the shard commit
 * rate, a flushed log line about a tenth (docs/BENCHMARKS.md, "Shard commit throughput"): the cost was the file
 * created per commit, not the flush. A store that cannot append (S3) gets one object per record,
 * {@code registrations/<shard hex>.<SHA-256 of the scope, hex>} (a scope holds slashes; a key's name must not).
 */
public final class Registrations implements AutoCloseable {
    public static final String PREFIX = "registrations/";
    static final String LOG_NAME = "log-";
    /** Marks a bucket whose every registration has its record, so {@link #backfill} runs once. */
    static final String BACKFILLED = "meta/registrations-complete";
    private static final ObjectMapper JSON = new ObjectMapper()
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);

    /** One registration: the shard (by its upload's hash), the scope that sent it, and when (epoch seconds). */
    public record Record(String shard, String scope, long registeredAt) {
    }

    private final Bucket bucket;
    private Bucket.AppendLog log;
    private boolean appendable = true;

    public Registrations(Bucket bucket) {
        this.bucket = bucket;
    }

    /** Records that {@code scope} registered {@code shard}; durable when this returns. */
    public void write(MerkleHash shard, String scope, long nowSeconds) throws IOException {
        Bucket.AppendLog log = log();
        if (log == null) {
            bucket.put(objectKey(shard, scope), bytes(shard, scope, nowSeconds));
        } else {
            log.syncThrough(log.append(line(shard, scope, nowSeconds)));
        }
    }

    /**
     * Writes a record for every (shard, scope) the index knows, once per bucket: a data dir from before the records
     * gets them at its first start with this version (then {@link #BACKFILLED} marks the bucket). Returns how many.
     */
    public long backfill(Index index) throws IOException, IndexException {
        if (bucket.size(BACKFILLED).isPresent()) return 0;
        long[] written = {0, 0};
        try {
            index.eachShardScope(s -> {
                try {
                    Bucket.AppendLog log = log();
                    if (log == null) {
                        bucket.put(objectKey(s.shard(), s.scope()), bytes(s.shard(), s.scope(), s.registeredAt()));
                    } else {
                        written[1] = log.append(line(s.shard(), s.scope(), s.registeredAt()));
                    }
                    written[0]++;
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        if (written[1] > 0) log().syncThrough(written[1]);
        bucket.put(BACKFILLED, new byte[0]);
        return written[0];
    }

    private synchronized Bucket.AppendLog log() throws IOException {
        if (log == null && appendable) {
            // Created at the first registration, not at start: a server that registers nothing leaves no empty log.
            log = bucket.createAppendLog(PREFIX + LOG_NAME + System.currentTimeMillis() + "-"
                    + ProcessHandle.current().pid() + "-" + Integer.toHexString(new Random().nextInt())).orElse(null);
            appendable = log != null;
        }
        return log;
    }

    @Override
    public synchronized void close() throws IOException {
        if (log != null) log.close();
    }

    /** What {@link #each} read: records, and lines that did not parse (a crash cut a record short; none acknowledged). */
    public record Reading(long records, long unreadable) {
    }

    /** Every record in the bucket: log by log in the order of their names (their start times), each line by line. */
    public static Reading each(Bucket bucket, Consumer<Record> each) throws IOException {
        long records = 0;
        long unreadable = 0;
        for (String key : keys(bucket)) {
            long size = bucket.size(key).orElse(0L);
            try (InputStream in = bucket.openRange(key, 0, size);
                 BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    if (line.isBlank()) continue;
                    try {
                        each.accept(JSON.readValue(line, Record.class));
                        records++;
                    } catch (IOException torn) {
                        unreadable++;
                    }
                }
            }
        }
        return new Reading(records, unreadable);
    }

    /** The size of every log and record object now: what {@link #copy} copies. */
    static Map<String, Long> sizes(Bucket bucket) throws IOException {
        Map<String, Long> sizes = new LinkedHashMap<>();
        for (String key : keys(bucket)) {
            bucket.size(key).ifPresent(n -> sizes.put(key, n));
        }
        return sizes;
    }

    /**
     * Copies each log and record object of {@code sizes} into {@code to} as it was when measured (a log grows only at
     * its end), streamed: a log holds about 150 bytes per registration.
     */
    static void copy(Bucket from, Bucket to, Map<String, Long> sizes) throws IOException {
        byte[] buf = new byte[1 << 20];
        for (Map.Entry<String, Long> e : sizes.entrySet()) {
            Bucket.AppendLog copy = to.createAppendLog(e.getKey()).orElse(null);
            if (copy == null) {
                to.put(e.getKey(), from.read(e.getKey()));
                continue;
            }
            try (copy; InputStream in = from.openRange(e.getKey(), 0, e.getValue())) {
                for (int n = in.readNBytes(buf, 0, buf.length); n > 0; n = in.readNBytes(buf, 0, buf.length)) {
                    copy.append(Arrays.copyOf(buf, n));
                }
            }
        }
    }

    /** The keys of the logs and record objects, sorted: logs by their start times. */
    static List<String> keys(Bucket bucket) throws IOException {
        List<String> keys = new ArrayList<>(bucket.list(PREFIX.substring(0, PREFIX.length() - 1)));
        Collections.sort(keys);
        return keys;
    }

    static String objectKey(MerkleHash shard, String scope) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(scope.getBytes(StandardCharsets.UTF_8));
            return PREFIX + shard.hex() + "." + HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] bytes(MerkleHash shard, String scope, long registeredAt) throws IOException {
        return JSON.writeValueAsBytes(new Record(shard.hex(), scope, registeredAt));
    }

    private static byte[] line(MerkleHash shard, String scope, long registeredAt) throws IOException {
        byte[] record = bytes(shard, scope, registeredAt);
        byte[] line = new byte[record.length + 1];
        System.arraycopy(record, 0, line, 0, record.length);
        line[record.length] = '\n';
        return line;
    }
}
