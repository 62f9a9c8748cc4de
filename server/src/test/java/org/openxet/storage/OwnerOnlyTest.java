package org.openxet.storage;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OwnerOnlyTest {
    @TempDir
    Path tmp;

    @Test
    void replaceWritesTheWholeFileOwnerOnlyAndLeavesNoTemporaryBehind() throws Exception {
        Path file = tmp.resolve("new/dir/users.json");
        OwnerOnly.replace(file, "first".getBytes(StandardCharsets.UTF_8));
        OwnerOnly.replace(file, "second".getBytes(StandardCharsets.UTF_8));
        assertEquals("second", Files.readString(file));
        assertEquals(OwnerOnly.FILE_MODE, Files.getPosixFilePermissions(file));
        assertEquals(OwnerOnly.DIR_MODE, Files.getPosixFilePermissions(tmp.resolve("new")));
        assertEquals(OwnerOnly.DIR_MODE, Files.getPosixFilePermissions(tmp.resolve("new/dir")));
        try (Stream<Path> left = Files.list(file.getParent())) {
            assertEquals(1, left.count(), "only the file itself");
        }
    }

    @Test
    void createIfAbsentKeepsTheFirstWritersFile() throws Exception {
        Path file = tmp.resolve("secrets.properties");
        assertTrue(OwnerOnly.createIfAbsent(file, "winner".getBytes(StandardCharsets.UTF_8)));
        assertFalse(OwnerOnly.createIfAbsent(file, "loser".getBytes(StandardCharsets.UTF_8)));
        assertEquals("winner", Files.readString(file));
        assertEquals(OwnerOnly.FILE_MODE, Files.getPosixFilePermissions(file));
        try (Stream<Path> left = Files.list(tmp)) {
            assertEquals(1, left.count(), "only the file itself");
        }
    }

    @Test
    void aTemporaryNameIsNeverShared() throws Exception {
        // The fixed ".new" name two writers (a `user add` beside a running `user add`) used to truncate for each other.
        Path file = tmp.resolve("users.json");
        Files.writeString(tmp.resolve("users.json.new"), "someone else's half-written file");
        OwnerOnly.replace(file, "mine".getBytes(StandardCharsets.UTF_8));
        assertEquals("someone else's half-written file", Files.readString(tmp.resolve("users.json.new")));
        assertEquals("mine", Files.readString(file));
    }
}
