package org.openxet.storage;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * A bucket on the local filesystem. A put writes a temp file in the same filesystem, fsyncs it, renames it into
 * place atomically and fsyncs the directory, so an acknowledged object survives {@code kill -9} and power loss and a
 * reader never sees a partial one. Temp files left by a crash are removed when the bucket opens.
 *
 * <p>Layout: {@code root/<key>} where the key's last segment is fanned out by its first two characters
 * ({@code xorbs/default/ab/abcd…}) so no directory grows past a few hundred thousand entries.
 */
public final class LocalBucket implements Bucket {
    private final Path root;
    private final Path tmp;
    private final long mapFromBytes;
    /** Directories this process has created or found and made durable (their entries, up to the root's, fsynced). */
    private final Set<Path> durableDirs = ConcurrentHashMap.newKeySet();

    public LocalBucket(Path root) throws IOException {
        this(root, MAP_FROM_BYTES);
    }

    /**
     * A bucket that maps ranges from {@code mapFromBytes} on ({@link #MAP_FROM_BYTES} for the server): other values
     * are for {@code RangeReadBench}, which times both ways of reading at each size.
     */
    public LocalBucket(Path root, long mapFromBytes) throws IOException {
        this(root, mapFromBytes, true);
    }

    private LocalBucket(Path root, long mapFromBytes, boolean owner) throws IOException {
        this.mapFromBytes = mapFromBytes;
        this.root = root.toAbsolutePath();
        this.tmp = this.root.resolve(BucketKeys.TMP);
        durableDirectory(tmp);
        if (!owner) return;
        // Left by a crashed run: this process owns the bucket now.
        try (Stream<Path> leftovers = Files.list(tmp)) {
            for (Path p : (Iterable<Path>) leftovers::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }

    /**
     * The bucket of a data dir whose server may be running (fsck, backup): unlike the constructor, it leaves the temp
     * files of that server's uploads in flight alone.
     */
    public static LocalBucket beside(Path root) throws IOException {
        return new LocalBucket(root, MAP_FROM_BYTES, false);
    }

    public Path root() {
        return root;
    }

    /** Where an object lives on disk (tools and tests read it directly). */
    public Path path(String key) {
        BucketKeys.validate(key);
        int slash = key.lastIndexOf('/');
        String name = key.substring(slash + 1);
        String dir = slash < 0 ? "" : key.substring(0, slash + 1);
        String fan = name.length() >= 2 ? name.substring(0, 2) : "_";
        return root.resolve(dir + fan + "/" + name);
    }

    /**
     * Largest single write of a put. {@code FileChannel.write} of a heap buffer first copies all of it into a temporary
     * direct buffer, which the JDK then keeps cached per carrier thread with no size limit: whole-xorb writes would
     * leave up to 64 MiB of native memory on every carrier (every core) once uploads have run on it. Slices keep that
     * copy at 1 MiB. Ten 63 MB xorbs ingested on virtual threads, 2 cores, native memory tracking at the end: "Other"
     * 124,126 KB with whole writes, 1,064 KB with slices.
     */
    private static final int WRITE_SLICE = 1024 * 1024;

    /**
     * One server per data dir, and its callers hold a lock per key while they store it (KeyedLocks): a check, then the
     * put, is atomic against every writer this bucket has.
     */
    @Override
    public boolean putIfAbsent(String key, ByteBuffer... parts) throws IOException {
        if (Files.exists(path(key))) return false;
        put(key, parts);
        return true;
    }

    @Override
    public void put(String key, ByteBuffer... parts) throws IOException {
        Path target = path(key);
        Path dir = target.getParent();
        Path temp = tmp.resolve(UUID.randomUUID() + ".part");
        try {
            try (FileChannel ch = FileChannel.open(temp, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                    OwnerOnly.FILE)) {
                for (ByteBuffer part : parts) {
                    for (int at = part.position(); at < part.limit(); at += WRITE_SLICE) {
                        ByteBuffer slice = part.slice(at, Math.min(WRITE_SLICE, part.limit() - at));
                        while (slice.hasRemaining()) {
                            ch.write(slice);
                        }
                    }
                }
                ch.force(true);
            }
            durableDirectory(dir);
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("bucket directory " + root + " does not support atomic rename", e);
            }
            OwnerOnly.syncDirectory(dir);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /** The file is created and its directory entry made durable here; records go to the page cache until synced. */
    @Override
    public Optional<AppendLog> createAppendLog(String key) throws IOException {
        Path target = path(key);
        durableDirectory(target.getParent());
        FileChannel ch = FileChannel.open(target, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND), OwnerOnly.FILE);
        OwnerOnly.syncDirectory(target.getParent());
        return Optional.of(new FileAppendLog(key, ch));
    }

    /**
     * An append log on a file opened for appending. A record that fails part-way (a full disk, an I/O error) is cut
     * off again: left there, the next record would continue its line and be read back as part of a broken one, so an
     * acknowledged record would be lost to {@code index rebuild}. A log that cannot be cut back, or whose fsync
     * failed (after which Linux may report later fsyncs as successes for pages it dropped), refuses every later record
     * and flush: those requests fail instead of being acknowledged on a log that may have lost bytes.
     */
    static final class FileAppendLog implements AppendLog {
        private final String key;
        private final FileChannel ch;
        private final Object flushing = new Object();
        private long written;
        private volatile long synced;
        private volatile IOException broken;

        FileAppendLog(String key, FileChannel ch) {
            this.key = key;
            this.ch = ch;
        }

        @Override
        public String key() {
            return key;
        }

        @Override
        public synchronized long append(byte[] record) throws IOException {
            refuseIfBroken();
            ByteBuffer b = ByteBuffer.wrap(record);
            try {
                while (b.hasRemaining()) {
                    ch.write(b);
                }
            } catch (IOException e) {
                try {
                    ch.truncate(written);
                } catch (IOException cut) {
                    e.addSuppressed(cut);
                    broken = e;
                }
                throw e;
            }
            written += record.length;
            return written;
        }

        @Override
        public void syncThrough(long length) throws IOException {
            if (synced >= length) return;
            synchronized (flushing) {
                if (synced >= length) return; // a flush that began after our append covered it
                refuseIfBroken();
                long target;
                synchronized (this) {
                    target = written;
                }
                try {
                    ch.force(false);
                } catch (IOException e) {
                    broken = e;
                    throw e;
                }
                synced = target;
            }
        }

        private void refuseIfBroken() throws IOException {
            IOException b = broken;
            if (b != null) throw new IOException("the record log " + key + " failed earlier: " + b.getMessage(), b);
        }

        @Override
        public void close() throws IOException {
            try (ch) {
                ch.force(false);
            }
        }
    }

    /**
     * Creates {@code dir} under the root as needed and makes its whole chain durable before any object in it is
     * acknowledged: the entry of every level, from {@code dir} up to the root itself, is fsynced in its parent,
     * bottom-up. Whether a level was new cannot be told from the disk (a concurrent writer may have just created it
     * and not synced it yet; a killed process may have left it unsynced), so a directory is trusted only once this
     * process has synced its chain; after that a put costs one fsync of its directory, as before.
     */
    private void durableDirectory(Path dir) throws IOException {
        if (durableDirs.contains(dir)) {
            return;
        }
        OwnerOnly.directories(dir);
        for (Path level = dir; level != null && level.startsWith(root); level = level.getParent()) {
            Path parent = level.getParent();
            if (parent != null) {
                OwnerOnly.syncDirectory(parent);
            }
        }
        durableDirs.add(dir);
    }


    @Override
    public Optional<Long> size(String key) throws IOException {
        // Asked of absent objects at every new file's shard registration: a NoSuchFileException's stack trace, a
        // hundred frames below Helidon's routing, was 1 % of the node's CPU samples under new-file uploads (perf).
        Path p = path(key);
        BasicFileAttributes found = p.getFileSystem().provider().readAttributesIfExists(p, BasicFileAttributes.class);
        return found == null ? Optional.empty() : Optional.of(found.size());
    }

    /**
     * From this length on a range is read through a mapping of the file: one copy from the page cache into the
     * caller's array, where {@code FileChannel.read} into a heap array copies twice (through a temporary direct
     * buffer). JMH {@code RangeReadBench} (page-cached ranges: open, copy, close; docs/BENCHMARKS.md): reading is
     * about 5 % faster up to 2 MiB, mapping 23 % faster from 4 MiB on.
     */
    public static final long MAP_FROM_BYTES = 4L * 1024 * 1024;
    /** A read range's {@code transferTo} step: the fetch route's copy buffer. */
    static final int TRANSFER_STEP = 256 * 1024;

    @Override
    public InputStream openRange(String key, long offset, long length) throws IOException {
        FileChannel ch = FileChannel.open(path(key), StandardOpenOption.READ);
        if (offset < 0 || length < 0 || offset + length > ch.size()) {
            long size = ch.size();
            ch.close();
            throw new IOException("range " + offset + "+" + length + " outside object " + key + " of " + size + " bytes");
        }
        if (length >= mapFromBytes) {
            // Objects are never truncated or rewritten in place (a put renames a new file over the key), so a mapping
            // cannot fault on a shrinking file; a file deleted while mapped stays readable until the unmap.
            try (ch) {
                Arena arena = Arena.ofConfined();
                try {
                    return new MappedRangeInputStream(ch.map(FileChannel.MapMode.READ_ONLY, offset, length, arena), arena);
                } catch (IOException | RuntimeException e) {
                    arena.close();
                    throw e;
                }
            }
        }
        ch.position(offset);
        InputStream whole = Channels.newInputStream(ch);
        return new BoundedInputStream(whole, length);
    }

    @Override
    public byte[] read(String key) throws IOException {
        return Files.readAllBytes(path(key));
    }

    @Override
    public void delete(String key) throws IOException {
        Files.deleteIfExists(path(key));
    }

    @Override
    public List<String> list(String prefix) throws IOException {
        List<String> out = new ArrayList<>();
        Path base = root.resolve(prefix.endsWith("/") || prefix.isEmpty() ? prefix : prefix + "/");
        if (!Files.isDirectory(base)) {
            return out;
        }
        try (Stream<Path> files = Files.walk(base)) {
            files.filter(Files::isRegularFile)
                    .filter(p -> !p.startsWith(tmp))
                    .forEach(p -> {
                        Path rel = root.relativize(p);
                        // Drop the fan-out directory: key = dir + name.
                        String dir = rel.getParent().getParent() == null ? "" : rel.getParent().getParent() + "/";
                        out.add(dir + rel.getFileName());
                    });
        }
        return out;
    }

    /** Files under the temp directory (a crash leaves them; tests check none is visible as an object). */
    public List<Path> tempFiles() throws IOException {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(tmp)) {
            s.forEach(out::add);
        }
        return out;
    }

    /**
     * A mapped range, unmapped on close. The arena is confined (closing a shared one stops every thread for a
     * handshake), so the opening thread reads and closes it, as {@link Bucket#openRange} requires.
     */
    private static final class MappedRangeInputStream extends InputStream {
        private final MemorySegment range;
        private final Arena arena;
        private long at;

        MappedRangeInputStream(MemorySegment range, Arena arena) {
            this.range = range;
            this.arena = arena;
        }

        @Override
        public int read() {
            return at < range.byteSize() ? range.get(ValueLayout.JAVA_BYTE, at++) & 0xff : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            java.util.Objects.checkFromIndexSize(off, len, b.length);
            long left = range.byteSize() - at;
            if (left <= 0) return len == 0 ? 0 : -1;
            int n = (int) Math.min(len, left);
            MemorySegment.copy(range, ValueLayout.JAVA_BYTE, at, b, off, n);
            at += n;
            return n;
        }

        /** To a channel ({@link Bucket#openRange}), the mapping itself: the kernel copies from the page cache. */
        @Override
        public long transferTo(OutputStream out) throws IOException {
            if (!(out instanceof WritableByteChannel channel)) {
                return super.transferTo(out);
            }
            long n = range.byteSize() - at;
            if (n <= 0) return 0;
            ByteBuffer rest = range.asSlice(at).asByteBuffer();
            while (rest.hasRemaining()) {
                channel.write(rest);
            }
            at += n;
            return n;
        }

        @Override
        public void close() {
            if (arena.scope().isAlive()) arena.close();
        }
    }

    /** Caps a stream at a length. */
    private static final class BoundedInputStream extends InputStream {
        private final InputStream in;
        private long remaining;

        BoundedInputStream(InputStream in, long remaining) {
            this.in = in;
            this.remaining = remaining;
        }

        @Override
        public int read() throws IOException {
            if (remaining <= 0) return -1;
            int b = in.read();
            if (b >= 0) remaining--;
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (remaining <= 0) return -1;
            int n = in.read(b, off, (int) Math.min(len, remaining));
            if (n > 0) remaining -= n;
            return n;
        }

        /** In the fetch route's own steps (256 KiB), not {@code InputStream}'s 16 KiB. */
        @Override
        public long transferTo(OutputStream out) throws IOException {
            byte[] buf = new byte[(int) Math.min(TRANSFER_STEP, Math.max(1, remaining))];
            long n = 0;
            for (int r; (r = read(buf, 0, buf.length)) > 0; ) {
                out.write(buf, 0, r);
                n += r;
            }
            return n;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
