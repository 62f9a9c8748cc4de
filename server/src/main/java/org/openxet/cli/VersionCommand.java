package org.openxet.cli;

import org.openxet.protocol.Blake3;
import org.openxet.protocol.Lz4;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** {@code openxet version}: one JSON line with the version, the JDK and the backends that loaded. */
@Command(name = "version", description = "Print version, JDK and the hashing/LZ4 backends in use (one JSON line).")
public final class VersionCommand implements Runnable {
    record Info(String version, String jdk, String blake3, String lz4) {
    }

    public static String version() {
        try (InputStream in = VersionCommand.class.getResourceAsStream("/openxet-version.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    @Override
    public void run() {
        System.out.println(Json.line(new Info(version(), Runtime.version().toString(), Blake3.get().backend(),
                Lz4.backend())));
    }

    /** Feeds {@code openxet --version}. */
    public static final class Provider implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[]{"openxet " + version()};
        }
    }
}
