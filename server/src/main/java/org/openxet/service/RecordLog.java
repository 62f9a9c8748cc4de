package org.openxet.service;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import org.openxet.storage.Bucket;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
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
 * Durable JSON records under one prefix of the blob bucket, the bucket's own account of what the index was told
 * ({@link Registrations}, {@link BucketChanges}): what {@code openxet index rebuild} replays. A local bucket appends
 * them as lines to one log per server process ({@code <prefix>log-<start millis>-<pid>-<random>}), each write waiting
 * for a flush it shares with every write in flight (a group commit: an object per record cost a quarter of the shard
 * commit rate, a flushed line about a tenth, docs/BENCHMARKS.md "Shard commit throughput"). A store that cannot
 * append (S3) gets one object per record, under a key the caller names.
 */
public final class RecordLog implements AutoCloseable {
    static final String LOG_NAME = "log-";
    static final ObjectMapper JSON = new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);

    private final Bucket bucket;
    private final String prefix;
    private Bucket.AppendLog log;
    private boolean appendable = true;

    /** Records under {@code prefix} ({@code "registrations/"}: ends in a slash). */
    RecordLog(Bucket bucket, String prefix) {
        this.bucket = bucket;
        this.prefix = prefix;
    }

    /** Writes {@code record}; durable when this returns. {@code objectKey} names it on a store that cannot append. */
    void write(String objectKey, Object record) throws IOException {
        long length = writeUnsynced(objectKey, record);
        if (length > 0) log.syncThrough(length);
    }

    /** As {@link #write} without waiting for the flush: the log's length to {@link #syncThrough}, or 0 (an object). */
    long writeUnsynced(String objectKey, Object record) throws IOException {
        Bucket.AppendLog log = log();
        if (log == null) {
            bucket.put(objectKey, JSON.writeValueAsBytes(record));
            return 0;
        }
        return log.append(line(record));
    }

    void syncThrough(long length) throws IOException {
        if (length > 0) log().syncThrough(length);
    }

    private synchronized Bucket.AppendLog log() throws IOException {
        if (log == null && appendable) {
            // Created at the first record, not at start: a server that records nothing leaves no empty log.
            log = bucket.createAppendLog(prefix + LOG_NAME + System.currentTimeMillis() + "-"
                    + ProcessHandle.current().pid() + "-" + Integer.toHexString(new Random().nextInt())).orElse(null);
            appendable = log != null;
        }
        return log;
    }

    @Override
    public synchronized void close() throws IOException {
        if (log != null) log.close();
    }

    /**
     * What {@link #each} read: records, and lines that did not parse (a crash cut a record short; none acknowledged).
     */
    public record Reading(long records, long unreadable) {
    }

    /**
     * Every record under {@code prefix}, as {@code type}: log by log in the order of their names (their start times),
     * each line by line, then the objects in the order of their keys.
     */
    static <T> Reading each(Bucket bucket, String prefix, Class<T> type, Consumer<T> each) throws IOException {
        long records = 0;
        long unreadable = 0;
        for (String key : keys(bucket, prefix)) {
            long size = bucket.size(key).orElse(0L);
            try (InputStream in = bucket.openRange(key, 0, size);
                 BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    if (line.isBlank()) continue;
                    T record;
                    try {
                        record = JSON.readValue(line, type);
                    } catch (IOException torn) {
                        unreadable++;
                        continue;
                    }
                    each.accept(record);
                    records++;
                }
            }
        }
        return new Reading(records, unreadable);
    }

    /** The size of every log and record object under {@code prefix} now: what {@link #copy} copies. */
    static Map<String, Long> sizes(Bucket bucket, String prefix) throws IOException {
        Map<String, Long> sizes = new LinkedHashMap<>();
        for (String key : keys(bucket, prefix)) {
            bucket.size(key).ifPresent(n -> sizes.put(key, n));
        }
        return sizes;
    }

    /**
     * Copies each log and record object of {@code sizes} into {@code to} as it was when measured (a log grows only at
     * its end), streamed: a log may hold millions of records.
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

    /** The keys of the logs and record objects under {@code prefix}, sorted: logs by their start times. */
    static List<String> keys(Bucket bucket, String prefix) throws IOException {
        List<String> keys = new ArrayList<>(bucket.list(prefix.substring(0, prefix.length() - 1)));
        Collections.sort(keys);
        return keys;
    }

    /** SHA-256 of {@code text}, hex: a key's name for a value that holds slashes (a scope, a bucket id). */
    static String digest(String text) {
        try {
            return HexFormat.of().formatHex(
                    MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] line(Object record) throws IOException {
        byte[] bytes = JSON.writeValueAsBytes(record);
        byte[] line = Arrays.copyOf(bytes, bytes.length + 1);
        line[bytes.length] = '\n';
        return line;
    }
}
