package org.openxet.http;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openxet.service.Access;
import org.openxet.service.DataDirLock;
import org.openxet.service.Recovery;
import org.openxet.service.Users;
import org.openxet.storage.OwnerOnly;
import org.openxet.testing.TestServer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The data dir and everything under it is the server user's alone: the index holds raw chunk hashes, keys and users. */
class DataDirModesTest {
    @TempDir
    Path tmp;

    @Test
    void aNewDataDirAndEverythingTheServerWritesThereIsOwnerOnly() throws Exception {
        Path data = tmp.resolve("srv/data");
        // As `openxet serve` starts: the lock, the running marker, then the services.
        try (DataDirLock lock = DataDirLock.acquire(data)) {
            Recovery.begin(data);
            try (TestServer s = new TestServer(c -> c.withDataDir(data))) {
                UploadPathTest.uploadScenario(s, "single-r3m", s.writeToken());
                new Users(data).add("alice", List.of("models/alice/*"), Access.WRITE);
            }
        }
        List<Path> seen = new ArrayList<>();
        try (Stream<Path> all = Files.walk(data)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                seen.add(p);
                assertEquals(Files.isDirectory(p) ? OwnerOnly.DIR_MODE : OwnerOnly.FILE_MODE,
                        Files.getPosixFilePermissions(p), data.relativize(p).toString());
            }
        }
        assertEquals(OwnerOnly.DIR_MODE, Files.getPosixFilePermissions(tmp.resolve("srv")));
        for (String expected : List.of("index.sqlite", "secrets.properties", Users.FILE, "LOCK")) {
            assertTrue(seen.contains(data.resolve(expected)), expected + " in " + seen);
        }
        assertTrue(seen.stream().anyMatch(p -> p.toString().contains("bucket") && Files.isRegularFile(p)),
                "a stored object in " + seen);
    }
}
