package org.openxet.storage;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads an index file into the operating system's page cache before the node says it is ready. After a reboot a
 * SQLite index is on disk, not in memory, and every lookup a client asks for then waits on the disk: a node on a
 * 10^7-file index (16.9 GB) offered 1,000 req/s had a median 8.5 one-second windows with p99 over 50 ms (worst
 * 2.2–3.8 s), reading from disk throughout, and 5.5 after this read (docs/BENCHMARKS.md, "Restart under load").
 * Reading the whole file costs 6–9 s there when nothing is cached and 0.4–0.6 s when it all is (a JVM just started;
 * 0.1–0.2 s in a warm one), so it is done at every start.
 *
 * <p>Linux's {@code readahead(2)}: the kernel fills the cache from the disk in the file's own order, without copying
 * the file into this process, and a page already cached costs a lookup. Each call covers {@link #STEP} bytes because
 * the kernel reads at most the device's readahead window per call, and a byte read every window ({@link #window})
 * waits for the reads and fills what a window left out. Another system, or a libc without the call, is skipped
 * with a reason.
 */
public final class PageCachePreload {
    /** Bytes a call asks for; the kernel reads up to the device's readahead window of them (128 KiB to 8 MiB). */
    static final long STEP = 2L << 20;
    /** The least a call reads: Linux's default readahead window, the smallest devices use. */
    static final long SMALLEST_WINDOW = 128L << 10;
    private static final Pattern MEM_AVAILABLE = Pattern.compile("(?m)^MemAvailable:\\s+(\\d+) kB$");
    private static final int O_RDONLY = 0;
    private static final Calls CALLS = Calls.find();

    private PageCachePreload() {
    }

    /** What a preload did: bytes brought in (or found cached) of the files' total, how long it took, why it was skipped. */
    public record Result(long bytes, long total, long millis, String skipped) {
        public boolean complete() {
            return skipped == null && bytes == total;
        }

        public String describe() {
            if (skipped != null) return "not read into the page cache: " + skipped;
            return String.format(java.util.Locale.ROOT, "%s of %s read into the page cache in %d ms%s", gb(bytes),
                    gb(total), millis, bytes == total ? "" : " (stopped at its time limit)");
        }

        private static String gb(long bytes) {
            return String.format(java.util.Locale.ROOT, "%.2f GB", bytes / 1e9);
        }
    }

    /**
     * Reads {@code files} (those that exist) into the page cache in order, stopping once {@code limit} has passed.
     * Skipped whole when they do not fit in {@code availableBytes} (the memory the kernel could give the cache without
     * swapping): reading a file larger than that would evict its own first pages while reading its last.
     */
    public static Result run(List<Path> files, Duration limit, long availableBytes) throws IOException {
        List<Path> present = new ArrayList<>();
        List<Long> sizes = new ArrayList<>();
        for (Path f : files) {
            BasicFileAttributes found = f.getFileSystem().provider()
                    .readAttributesIfExists(f, BasicFileAttributes.class);
            if (found == null) continue;
            present.add(f);
            sizes.add(found.size());
        }
        return run(present, sizes, limit, availableBytes);
    }

    /**
     * {@link #run}, each file read up to the size it had when the sizes were taken. A node answers requests before it
     * is ready, so a client that does not wait for ready writes to the WAL meanwhile; reading each file's size twice
     * made such a run say "stopped at its time limit" when it had read every byte it set out to.
     */
    static Result run(List<Path> files, List<Long> sizes, Duration limit, long availableBytes) throws IOException {
        long total = 0;
        for (long size : sizes) total += size;
        if (CALLS == null) return new Result(0, total, 0, "this system has no readahead(2)");
        if (total > availableBytes) {
            return new Result(0, total, 0, String.format(java.util.Locale.ROOT, "%.2f GB, more than the %.2f GB of"
                    + " memory available for it", total / 1e9, availableBytes / 1e9));
        }
        long start = System.nanoTime();
        long deadline = start + limit.toNanos();
        long done = 0;
        for (int i = 0; i < files.size(); i++) {
            Path f = files.get(i);
            long size = sizes.get(i);
            long touch = window(f);
            int fd = CALLS.open(f);
            try (FileChannel channel = FileChannel.open(f, StandardOpenOption.READ)) {
                ByteBuffer one = ByteBuffer.allocateDirect(1);
                for (long at = 0; at < size; at += STEP) {
                    if (System.nanoTime() - deadline > 0) {
                        return new Result(done, total, (System.nanoTime() - start) / 1_000_000, null);
                    }
                    long n = Math.min(STEP, size - at);
                    CALLS.readahead(fd, at, n, f);
                    // readahead(2) only starts the reads, and reads no more than the device's window per call: a byte
                    // read every window waits for them and reads what a window left out, so "ready" means in memory
                    // (16.9 GB: 3.7 s without these reads, with most of the disk reads still to come).
                    for (long end = at + touch; ; end += touch) {
                        channel.read(one.clear(), Math.min(end, at + n) - 1);
                        if (end >= at + n) break;
                    }
                    done += n;
                }
            } finally {
                CALLS.close(fd);
            }
        }
        return new Result(done, total, (System.nanoTime() - start) / 1_000_000, null);
    }

    /**
     * What one readahead(2) call reads of the device holding {@code file}, at most {@link #STEP}: the larger of its
     * readahead window and its largest request (Linux's {@code force_page_cache_ra}). On the cached 16.9 GB index, in
     * a warm JVM, a byte read every 128 KiB took 0.4–0.7 s and one a window (this VM's disk says 8 MiB, so one a 2 MiB
     * step, a sixteenth as many) 0.1–0.2 s; in a server just started, 0.41 and 0.55 s. Where sysfs does not say (no
     * block device, another system), {@link #SMALLEST_WINDOW}.
     */
    static long window(Path file) {
        try {
            long dev = ((Number) Files.getAttribute(file, "unix:dev")).longValue();
            long major = ((dev >>> 8) & 0xfff) | ((dev >>> 32) & ~0xfffL);
            long minor = (dev & 0xff) | ((dev >>> 12) & ~0xffL);
            Path device = Path.of("/sys/dev/block/" + major + ":" + minor);
            // A partition's queue is its disk's.
            Path queue = Files.isDirectory(device.resolve("queue")) ? device.resolve("queue") : device.resolve("../queue");
            long kib = Math.max(kib(queue.resolve("read_ahead_kb")), kib(queue.resolve("max_sectors_kb")));
            return Math.clamp(kib << 10, SMALLEST_WINDOW, STEP);
        } catch (IOException | RuntimeException e) {
            return SMALLEST_WINDOW;
        }
    }

    private static long kib(Path sysfs) throws IOException {
        return Long.parseLong(Files.readString(sysfs).trim());
    }

    /** The kernel's MemAvailable from {@code /proc/meminfo}, empty where there is none. */
    public static Optional<Long> availableMemory() {
        try {
            Matcher m = MEM_AVAILABLE.matcher(Files.readString(Path.of("/proc/meminfo")));
            return m.find() ? Optional.of(Long.parseLong(m.group(1)) * 1024) : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** libc's open, readahead and close through FFM; null where the C library has no readahead. */
    private record Calls(MethodHandle open, MethodHandle readahead, MethodHandle close) {
        static Calls find() {
            try {
                Linker linker = Linker.nativeLinker();
                var libc = linker.defaultLookup();
                var readahead = libc.find("readahead");
                if (readahead.isEmpty()) return null;
                return new Calls(
                        linker.downcallHandle(libc.find("open").orElseThrow(),
                                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT),
                                Linker.Option.firstVariadicArg(2), Linker.Option.captureCallState("errno")),
                        linker.downcallHandle(readahead.get(), FunctionDescriptor.of(ValueLayout.JAVA_LONG,
                                ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG),
                                Linker.Option.captureCallState("errno")),
                        linker.downcallHandle(libc.find("close").orElseThrow(),
                                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT)));
            } catch (RuntimeException | LinkageError e) {
                return null;
            }
        }

        int open(Path file) throws IOException {
            try (Arena arena = Arena.ofConfined()) {
                var state = arena.allocate(Linker.Option.captureStateLayout());
                int fd = (int) open.invokeExact(state, arena.allocateFrom(file.toString()), O_RDONLY);
                if (fd < 0) throw new IOException("cannot open " + file + " (errno " + errno(state) + ")");
                return fd;
            } catch (IOException | RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }

        void readahead(int fd, long offset, long count, Path file) throws IOException {
            try (Arena arena = Arena.ofConfined()) {
                var state = arena.allocate(Linker.Option.captureStateLayout());
                long r = (long) readahead.invokeExact(state, fd, offset, count);
                if (r != 0) throw new IOException("readahead failed on " + file + " (errno " + errno(state) + ")");
            } catch (IOException | RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }

        void close(int fd) {
            try {
                int ignored = (int) close.invokeExact(fd);
            } catch (Throwable t) {
                // a descriptor that will not close leaks one fd for the process's life; nothing to do about it
            }
        }

        private static int errno(java.lang.foreign.MemorySegment state) {
            return state.get(ValueLayout.JAVA_INT, Linker.Option.captureStateLayout().byteOffset(
                    java.lang.foreign.MemoryLayout.PathElement.groupElement("errno")));
        }
    }
}
