package org.openxet.protocol;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds the shared libraries that {@code native/build.sh} produces. They are not inside the jar (they are built
 * per machine from distribution sources), so the server looks in, in order:
 * <ol>
 *     <li>the directory in system property {@value #DIR_PROPERTY} (the test runner sets it),</li>
 *     <li>the directory in environment variable {@value #DIR_ENV},</li>
 *     <li>{@code native/build/} in the directory of the jar or classes folder and each of its parents, which finds
 *     the repository's build output both from {@code server/target/classes} and from a jar in {@code target/}.</li>
 * </ol>
 */
public final class NativeLibraries {
    public static final String DIR_PROPERTY = "openxet.native.dir";
    public static final String DIR_ENV = "OPENXET_NATIVE_DIR";

    private NativeLibraries() {
    }

    /**
     * The path of {@code fileName} (e.g. {@code libopenxet_blake3.so}).
     *
     * @throws UnsatisfiedLinkError naming every place looked at, when none holds the file
     */
    public static Path find(String fileName) {
        List<String> tried = new ArrayList<>();
        String property = System.getProperty(DIR_PROPERTY);
        if (property != null && !property.isBlank()) {
            Path p = Path.of(property).resolve(fileName);
            if (Files.isRegularFile(p)) {
                return p.toAbsolutePath();
            }
            tried.add(p + " (-D" + DIR_PROPERTY + ")");
        } else {
            tried.add("-D" + DIR_PROPERTY + " (not set)");
        }
        String env = System.getenv(DIR_ENV);
        if (env != null && !env.isBlank()) {
            Path p = Path.of(env).resolve(fileName);
            if (Files.isRegularFile(p)) {
                return p.toAbsolutePath();
            }
            tried.add(p + " ($" + DIR_ENV + ")");
        } else {
            tried.add("$" + DIR_ENV + " (not set)");
        }
        Path start = codeLocation();
        if (start == null) {
            tried.add("native/build/ above the code location (unknown)");
        } else {
            for (Path dir = start; dir != null; dir = dir.getParent()) {
                Path p = dir.resolve("native").resolve("build").resolve(fileName);
                if (Files.isRegularFile(p)) {
                    return p;
                }
            }
            tried.add("native/build/" + fileName + " in " + start + " and every parent");
        }
        throw new UnsatisfiedLinkError(fileName + " not found (run native/build.sh); looked at: "
                + String.join("; ", tried));
    }

    /** The directory holding our jar, or the classes directory itself; null when the JVM does not say. */
    private static Path codeLocation() {
        CodeSource source = NativeLibraries.class.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null) {
            return null;
        }
        try {
            Path p = Path.of(source.getLocation().toURI()).toAbsolutePath();
            return Files.isDirectory(p) ? p : p.getParent();
        } catch (URISyntaxException | IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
            // A location that is not a file (e.g. a custom class loader's URL): walking up is impossible.
            return null;
        }
    }
}
