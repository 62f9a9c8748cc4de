package org.openxet.http;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * {@code send.timeout}: Linux's {@code TCP_USER_TIMEOUT}, set once on the listening socket, which every connection it
 * accepts inherits (the kernel copies the listener's options into each new socket).
 *
 * <p>Why: a client that stops reading its answer (a stuck process, a hostile one) shuts its receive window. The kernel
 * then probes the window and the client's kernel keeps answering, so a blocked write never fails: the request's
 * thread, its answer buffers and any slot it holds (the dedup route's answer slots, 2 per CPU) were held for as long as
 * the client liked: as many such clients as slots would turn every dedup query into a 503. With the option, a
 * connection that takes nothing for this long (window shut, or nothing sent acknowledged) is aborted by the kernel,
 * the blocked write fails with "Connection timed out", and the request ends as a client gone (499, one INFO line).
 * Idle kept-alive connections have nothing in flight and are not affected (that is {@code idle.timeout}).
 *
 * <p>No Java API sets the option or gives a socket's descriptor, so the listening socket is found among
 * {@code /proc/self/fd} by its port ({@code getsockname}) and listening state ({@code SO_ACCEPTCONN}), and the option
 * is set through FFM. Where that cannot be done (not Linux) the server says so in one line and runs without it.
 */
final class SendTimeout {
    private static final int SOL_SOCKET = 1;
    private static final int SO_ACCEPTCONN = 30;
    private static final int IPPROTO_TCP = 6;
    private static final int TCP_USER_TIMEOUT = 18;
    private static final int SOCKADDR_BYTES = 128;

    private SendTimeout() {
    }

    /**
     * Sets {@code timeout} on every listening socket of this process bound to {@code port}; returns why it could not,
     * or empty when it was set. A zero timeout sets nothing.
     */
    static Optional<String> apply(int port, Duration timeout) {
        if (timeout.isZero()) return Optional.empty();
        Path fds = Path.of("/proc/self/fd");
        if (!Files.isDirectory(fds)) return Optional.of("no /proc/self/fd here (not Linux)");
        try {
            Native lib = Native.get();
            int set = 0;
            try (Arena arena = Arena.ofConfined(); DirectoryStream<Path> entries = Files.newDirectoryStream(fds)) {
                MemorySegment value = arena.allocate(ValueLayout.JAVA_INT);
                MemorySegment address = arena.allocate(SOCKADDR_BYTES);
                MemorySegment length = arena.allocate(ValueLayout.JAVA_INT);
                for (Path entry : entries) {
                    int fd;
                    try {
                        if (!Files.readSymbolicLink(entry).toString().startsWith("socket:")) continue;
                        fd = Integer.parseInt(entry.getFileName().toString());
                    } catch (IOException | NumberFormatException gone) {
                        continue; // closed meanwhile (the directory stream's own descriptor is one)
                    }
                    if (!lib.listeningOn(fd, port, value, address, length)) continue;
                    value.set(ValueLayout.JAVA_INT, 0, (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
                    if ((int) lib.setsockopt.invokeExact(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, value, 4) != 0) {
                        return Optional.of("setsockopt(TCP_USER_TIMEOUT) failed on the listening socket");
                    }
                    set++;
                }
            }
            return set > 0 ? Optional.empty() : Optional.of("no listening socket on port " + port + " found");
        } catch (Throwable t) {
            return Optional.of(t.toString());
        }
    }

    /** The three libc calls, bound once. */
    private record Native(MethodHandle setsockopt, MethodHandle getsockopt, MethodHandle getsockname) {
        private static Native instance;

        static synchronized Native get() {
            if (instance == null) {
                Linker linker = Linker.nativeLinker();
                FunctionDescriptor sockopt = FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                        ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT);
                instance = new Native(
                        linker.downcallHandle(linker.defaultLookup().find("setsockopt").orElseThrow(), sockopt),
                        linker.downcallHandle(linker.defaultLookup().find("getsockopt").orElseThrow(),
                                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                                        ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS)),
                        linker.downcallHandle(linker.defaultLookup().find("getsockname").orElseThrow(),
                                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                                        ValueLayout.ADDRESS)));
            }
            return instance;
        }

        /** Whether {@code fd} is a listening socket bound to {@code port} (IPv4 or IPv6: the port sits at byte 2). */
        boolean listeningOn(int fd, int port, MemorySegment value, MemorySegment address, MemorySegment length)
                throws Throwable {
            length.set(ValueLayout.JAVA_INT, 0, 4);
            if ((int) getsockopt.invokeExact(fd, SOL_SOCKET, SO_ACCEPTCONN, value, length) != 0
                    || value.get(ValueLayout.JAVA_INT, 0) != 1) {
                return false;
            }
            length.set(ValueLayout.JAVA_INT, 0, SOCKADDR_BYTES);
            if ((int) getsockname.invokeExact(fd, address, length) != 0) return false;
            int bound = (Byte.toUnsignedInt(address.get(ValueLayout.JAVA_BYTE, 2)) << 8)
                    | Byte.toUnsignedInt(address.get(ValueLayout.JAVA_BYTE, 3));
            return bound == port;
        }
    }
}
