package org.openxet.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Files and directories of the data dir, created for the server's user alone (0700 / 0600): the index holds raw chunk
 * hashes (enough to ask for any stored content), {@code secrets.properties} the signing keys, {@code users.json} the
 * user-token digests. And the two small files written whole (keys, users) are written durably: a unique temporary
 * name (two writers never share one), fsynced, renamed or linked into place, and the directory fsynced, so a crash
 * leaves the old file or the new one, never a torn or empty one.
 */
public final class OwnerOnly {
    public static final Set<PosixFilePermission> FILE_MODE = PosixFilePermissions.fromString("rw-------");
    public static final Set<PosixFilePermission> DIR_MODE = PosixFilePermissions.fromString("rwx------");
    static final FileAttribute<Set<PosixFilePermission>> FILE = PosixFilePermissions.asFileAttribute(FILE_MODE);
    private static final FileAttribute<Set<PosixFilePermission>> DIR = PosixFilePermissions.asFileAttribute(DIR_MODE);

    private OwnerOnly() {
    }

    /** {@code dir} and any missing parents, each one created 0700 (an existing directory keeps its mode). */
    public static Path directories(Path dir) throws IOException {
        return Files.createDirectories(dir, DIR);
    }

    /** Removes {@code dir} and everything under it, if it is there. */
    public static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) return;
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }

    /** Narrows an existing file to 0600 (for files another library creates with the process's umask: SQLite's). */
    public static void restrict(Path file) throws IOException {
        if (Files.exists(file)) {
            Files.setPosixFilePermissions(file, FILE_MODE);
        }
    }

    /** Replaces {@code file} with {@code content} atomically and durably, mode 0600. */
    public static void replace(Path file, byte[] content) throws IOException {
        Path tmp = durableTemp(file, content);
        try {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
        syncDirectory(file.toAbsolutePath().getParent());
    }

    /**
     * Creates {@code file} with {@code content} atomically and durably, mode 0600, unless it exists: then the file is
     * left as it is and false returned (two processes creating it at once: the first link wins, both read the winner).
     */
    public static boolean createIfAbsent(Path file, byte[] content) throws IOException {
        Path tmp = durableTemp(file, content);
        try {
            Files.createLink(file, tmp);
        } catch (FileAlreadyExistsException raced) {
            return false;
        } finally {
            Files.deleteIfExists(tmp);
        }
        syncDirectory(file.toAbsolutePath().getParent());
        return true;
    }

    private static Path durableTemp(Path file, byte[] content) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        directories(dir);
        Path tmp = Files.createTempFile(dir, "." + file.getFileName() + ".", ".tmp", FILE);
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
            ByteBuffer buf = ByteBuffer.wrap(content);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        return tmp;
    }

    /** Makes {@code dir}'s entries durable: a file created, renamed or removed in it survives a crash. */
    public static void syncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }
}
