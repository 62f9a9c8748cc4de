package org.openxet.storage;

import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A bucket in S3-compatible object storage, shared by every node of a deployment. Keys live under the URL's prefix
 * ({@code s3://bucket/prefix} → {@code prefix/xorbs/default/<hex>}), unfanned: S3 has no directories to keep small.
 *
 * <p>A PutObject is atomic (readers see the old object, none, or the whole new one) and durable once acknowledged,
 * and S3 reads are strongly consistent after a write, so {@link Bucket}'s contract holds without temp objects. Every
 * call blocks its (virtual) thread on the JDK's {@code HttpURLConnection}; the SDK retries transient failures, and
 * what still fails surfaces as a {@link BucketException}, which the HTTP layer answers with a retryable 5xx.
 */
public final class S3Bucket implements Bucket {
    private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger(S3Bucket.class.getName());
    private final S3Client s3;
    private final String bucket;
    /** Prepended to every key: empty, or the URL's prefix with one trailing slash. */
    private final String root;
    /** The bucket URL and where it was reached, for messages. */
    private final String where;
    /**
     * Sizes of objects this node has stored or seen. Every signed-URL fetch needs its object's size (the 206's
     * Content-Range), and a download makes a fetch per range descriptor, often hundreds per xorb: without this, each
     * one would pay a HEAD round trip to the store before its GET. Objects are immutable and content addressed, so a
     * size once seen stays true while the object exists. Besides this node's {@link #delete} (which forgets the size),
     * only {@code openxet gc --online} deletes from a shared bucket, and only xorbs no file uses, which no fetch asks
     * for; {@link #putIfAbsent} asks the store itself. Bounded: when full it starts over.
     */
    private final Map<String, Long> sizes = new ConcurrentHashMap<>();
    static final int SIZES_KEPT = 50_000;

    private S3Bucket(S3Client s3, String bucket, String root, String where) {
        this.s3 = s3;
        this.bucket = bucket;
        this.root = root;
        this.where = where;
    }

    /**
     * Opens {@code bucketUrl} ({@code s3://bucket} or {@code s3://bucket/prefix}) and checks that the bucket answers
     * (HeadBucket), so a wrong name, endpoint or credential stops the server at start instead of failing the first
     * upload. An empty {@code endpoint} means AWS's own for {@code region}; any other is an S3-compatible store, which
     * takes path-style requests ({@code endpoint/bucket/key}) where AWS wants the bucket in the host name.
     * Credentials come from the SDK's default chain: {@code AWS_ACCESS_KEY_ID}/{@code AWS_SECRET_ACCESS_KEY}, the
     * {@code aws.accessKeyId} system properties, profiles in {@code ~/.aws}, or the instance's role.
     */
    public static S3Bucket open(String bucketUrl, String endpoint, String region) throws IOException {
        URI url = URI.create(bucketUrl);
        if (!"s3".equals(url.getScheme()) || url.getHost() == null) {
            throw new IllegalArgumentException("not an s3://bucket[/prefix] URL: " + bucketUrl);
        }
        String prefix = url.getPath() == null ? "" : url.getPath().replaceAll("^/+|/+$", "");
        String where = bucketUrl + " (" + (endpoint.isEmpty() ? "AWS" : endpoint) + ", region " + region + ")";
        S3ClientBuilder builder = S3Client.builder()
                .httpClient(UrlConnectionHttpClient.create())
                .region(Region.of(region));
        if (!endpoint.isEmpty()) {
            builder.endpointOverride(URI.create(endpoint)).forcePathStyle(true);
        }
        S3Client s3;
        try {
            s3 = builder.build();
        } catch (SdkException e) {
            throw new BucketException("S3 bucket " + where + " cannot be used: " + firstLine(e.getMessage()), e);
        }
        S3Bucket opened = new S3Bucket(s3, url.getHost(), prefix.isEmpty() ? "" : prefix + "/", where);
        try {
            s3.headBucket(b -> b.bucket(opened.bucket));
        } catch (SdkException e) {
            s3.close();
            throw new BucketException("S3 bucket " + where + " is not reachable: " + reason(e), e);
        }
        return opened;
    }

    /** One line saying why a call failed; S3's 403 and 404 on a bucket come without a message of their own. */
    private static String reason(SdkException e) {
        if (e instanceof S3Exception s) {
            return switch (s.statusCode()) {
                case 403 -> "access denied (check the credentials: AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, profile or role)";
                case 404 -> "no such bucket";
                default -> "HTTP " + s.statusCode() + " " + firstLine(s.getMessage());
            };
        }
        String message = firstLine(e.getMessage());
        if (message.startsWith("Unable to load credentials")) {
            // The SDK lists every provider of its chain and why each failed: a screenful on one line.
            return "no credentials found (set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or run with a role)";
        }
        return message;
    }

    private static String firstLine(String message) {
        if (message == null) return "(no message)";
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }

    private String objectKey(String key) {
        BucketKeys.validate(key);
        return root + key;
    }

    private BucketException failure(String what, String key, SdkException e) {
        return new BucketException(what + " " + key + " in S3 bucket " + where + " failed: " + reason(e), e);
    }

    @Override
    public boolean shared() {
        return true;
    }

    @Override
    public void put(String key, ByteBuffer... parts) throws IOException {
        String k = objectKey(key);
        long length = length(parts);
        try {
            s3.putObject(b -> b.bucket(bucket).key(k), body(parts, length));
            remember(key, length);
        } catch (SdkException e) {
            throw failure("put", key, e);
        }
    }

    private static long length(ByteBuffer... parts) {
        long length = 0;
        for (ByteBuffer part : parts) {
            length += part.remaining();
        }
        return length;
    }

    /**
     * The SDK opens the body once per attempt: each stream reads its own views, never the caller's positions, and
     * never copies the (up to 64 MiB) parts into one array.
     */
    private static RequestBody body(ByteBuffer[] parts, long length) {
        return RequestBody.fromContentProvider(() -> new ByteBuffersInputStream(parts), length, "application/octet-stream");
    }

    /**
     * A PutObject with {@code If-None-Match: *} (AWS S3 since 2024, MinIO, R2, GCS, s3proxy's filesystem store): the
     * store itself refuses the second writer with 412. A store that answers that it does not support conditional
     * writes (501, or 400/405 naming the header) gets a plain put after a HEAD, with one WARNING: there, two nodes
     * racing one xorb in two encodings can still overwrite each other.
     */
    @Override
    public boolean putIfAbsent(String key, ByteBuffer... parts) throws IOException {
        if (!conditionalWrites) {
            // Asked of the store, not of the sizes seen: an online gc may have deleted the object since.
            sizes.remove(key);
            if (size(key).isPresent()) return false;
            put(key, parts);
            return true;
        }
        String k = objectKey(key);
        long length = length(parts);
        try {
            s3.putObject(b -> b.bucket(bucket).key(k).ifNoneMatch("*"), body(parts, length));
            remember(key, length);
            return true;
        } catch (S3Exception e) {
            if (e.statusCode() == 412) {
                // Someone's object is there; its size is learnt from the store, never assumed to be ours.
                sizes.remove(key);
                return false;
            }
            if (e.statusCode() == 409) {
                // S3: a conflicting write of the same key was in progress. Whichever finished is the object.
                sizes.remove(key);
                return false;
            }
            if (e.statusCode() == 501 || ((e.statusCode() == 400 || e.statusCode() == 405)
                    && String.valueOf(e.getMessage()).contains("onditional"))) {
                conditionalWrites = false;
                LOG.warning("S3 bucket " + where + " does not support conditional writes (If-None-Match): nodes that"
                        + " store one xorb at the same moment in two encodings may overwrite each other there");
                return putIfAbsent(key, parts);
            }
            throw failure("put", key, e);
        } catch (SdkException e) {
            throw failure("put", key, e);
        }
    }

    private volatile boolean conditionalWrites = true;

    private void remember(String key, long size) {
        if (sizes.size() >= SIZES_KEPT) {
            sizes.clear();
        }
        sizes.put(key, size);
    }

    @Override
    public Optional<Long> size(String key) throws IOException {
        Long known = sizes.get(key);
        if (known != null) {
            return Optional.of(known);
        }
        String k = objectKey(key);
        try {
            long size = s3.headObject(b -> b.bucket(bucket).key(k)).contentLength();
            remember(key, size);
            return Optional.of(size);
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        } catch (S3Exception e) {
            // A HEAD answer has no body, so some stores' 404 does not parse into NoSuchKeyException.
            if (e.statusCode() == 404) return Optional.empty();
            throw failure("head", key, e);
        } catch (SdkException e) {
            throw failure("head", key, e);
        }
    }

    @Override
    public InputStream openRange(String key, long offset, long length) throws IOException {
        String k = objectKey(key);
        if (offset < 0 || length < 0) {
            throw new IOException("range " + offset + "+" + length + " of object " + key + " is negative");
        }
        if (length == 0) {
            // An HTTP range cannot be empty; ask for the size instead, to answer absent and out-of-range alike.
            long size = size(key).orElseThrow(() -> new NoSuchFileException(key));
            if (offset > size) {
                throw new IOException("range " + offset + "+0 outside object " + key + " of " + size + " bytes");
            }
            return InputStream.nullInputStream();
        }
        ResponseInputStream<GetObjectResponse> in;
        try {
            in = s3.getObject(b -> b.bucket(bucket).key(k).range("bytes=" + offset + "-" + (offset + length - 1)));
        } catch (NoSuchKeyException e) {
            throw new NoSuchFileException(key);
        } catch (S3Exception e) {
            if (e.statusCode() == 416) {
                throw new IOException("range " + offset + "+" + length + " outside object " + key, e);
            }
            throw failure("get", key, e);
        } catch (SdkException e) {
            throw failure("get", key, e);
        }
        // S3 cuts a range that runs past the end short; the caller asked for exactly length bytes.
        Long got = in.response().contentLength();
        if (got == null || got != length) {
            in.abort();
            throw new IOException("range " + offset + "+" + length + " outside object " + key + " ("
                    + in.response().contentRange() + ")");
        }
        return new RangeStream(in, key, length);
    }

    @Override
    public byte[] read(String key) throws IOException {
        String k = objectKey(key);
        try {
            return s3.getObjectAsBytes(b -> b.bucket(bucket).key(k)).asByteArrayUnsafe();
        } catch (NoSuchKeyException e) {
            throw new NoSuchFileException(key);
        } catch (SdkException e) {
            throw failure("get", key, e);
        }
    }

    @Override
    public void delete(String key) throws IOException {
        String k = objectKey(key);
        sizes.remove(key);
        try {
            s3.deleteObject(b -> b.bucket(bucket).key(k));
        } catch (SdkException e) {
            throw failure("delete", key, e);
        }
    }

    @Override
    public List<String> list(String prefix) throws IOException {
        String dir = root + (prefix.isEmpty() || prefix.endsWith("/") ? prefix : prefix + "/");
        List<String> out = new ArrayList<>();
        try {
            for (S3Object o : s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(dir)).contents()) {
                out.add(o.key().substring(root.length()));
            }
        } catch (SdkException e) {
            throw failure("list", prefix + "/", e);
        }
        return out;
    }

    @Override
    public void close() {
        s3.close();
    }

    /** Reads the remaining bytes of several buffers in order, through views of its own. */
    private static final class ByteBuffersInputStream extends InputStream {
        private final ByteBuffer[] parts;
        private int current;

        ByteBuffersInputStream(ByteBuffer[] parts) {
            this.parts = new ByteBuffer[parts.length];
            for (int i = 0; i < parts.length; i++) {
                this.parts[i] = parts[i].duplicate();
            }
        }

        private ByteBuffer next() {
            while (current < parts.length && !parts[current].hasRemaining()) {
                current++;
            }
            return current < parts.length ? parts[current] : null;
        }

        @Override
        public int read() {
            ByteBuffer b = next();
            return b == null ? -1 : b.get() & 0xFF;
        }

        @Override
        public int read(byte[] into, int off, int len) {
            if (len == 0) return 0;
            ByteBuffer b = next();
            if (b == null) return -1;
            int n = Math.min(len, b.remaining());
            b.get(into, off, n);
            return n;
        }

        @Override
        public int available() {
            ByteBuffer b = next();
            return b == null ? 0 : b.remaining();
        }
    }

    /**
     * A ranged GET's body. Closed before its end (a client that went away), it aborts the connection instead of
     * draining up to 64 MiB nobody reads. A failure while reading is the store's ({@link BucketException}): a reset
     * of the connection to S3 must not pass for the client's own connection going away.
     */
    private static final class RangeStream extends InputStream {
        private final ResponseInputStream<GetObjectResponse> in;
        private final String key;
        private long remaining;

        RangeStream(ResponseInputStream<GetObjectResponse> in, String key, long length) {
            this.in = in;
            this.key = key;
            this.remaining = length;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] into, int off, int len) throws IOException {
            int n;
            try {
                n = in.read(into, off, len);
            } catch (IOException | SdkException e) {
                throw new BucketException("reading object " + key + " from S3 failed: " + e.getMessage(), e);
            }
            if (n > 0) remaining -= n;
            if (n < 0 && remaining > 0) {
                throw new BucketException("object " + key + " ended " + remaining + " bytes early", null);
            }
            return n;
        }

        @Override
        public void close() throws IOException {
            if (remaining > 0) {
                in.abort();
            }
            in.close();
        }
    }
}
