package org.openxet.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class NativeLibrariesTest {
    private final String saved = System.getProperty(NativeLibraries.DIR_PROPERTY);

    @AfterEach
    void restore() {
        System.setProperty(NativeLibraries.DIR_PROPERTY, saved);
    }

    @Test
    void theConfiguredDirectoryComesFirst() {
        Path found = NativeLibraries.find(NativeBlake3.LIBRARY);
        assertEquals(Path.of(saved).resolve(NativeBlake3.LIBRARY).toAbsolutePath(), found);
    }

    @Test
    void withoutConfigurationItWalksUpFromTheClassesToNativeBuild() throws Exception {
        System.setProperty(NativeLibraries.DIR_PROPERTY, "/nonexistent-openxet-dir");
        Path found = NativeLibraries.find(NativeBlake3.LIBRARY);
        assertTrue(found.endsWith(Path.of("native", "build", NativeBlake3.LIBRARY)), found.toString());
        assertTrue(Files.isSameFile(Path.of(saved).resolve(NativeBlake3.LIBRARY), found));
    }

    @Test
    void aMissingLibraryNamesEveryPlaceLookedAt() {
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class,
                () -> NativeLibraries.find("libnothing_openxet.so"));
        assertTrue(e.getMessage().contains("native/build.sh"), e.getMessage());
        assertTrue(e.getMessage().contains("-D" + NativeLibraries.DIR_PROPERTY), e.getMessage());
        assertTrue(e.getMessage().contains("$" + NativeLibraries.DIR_ENV), e.getMessage());
        assertTrue(e.getMessage().contains("every parent"), e.getMessage());
    }
}
