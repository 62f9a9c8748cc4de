package org.openxet.gates;

import org.openxet.cli.AsyncConsoleHandler;

import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;

/**
 * The in-process server logs as {@code openxet serve} does (the levels and the line of
 * server/src/main/resources/logging.properties, an access-log line per request, its handler) but into a file,
 * so the gate's own output stays readable and its JSON line stays last.
 */
final class ServerLogs {
    // JUL keeps loggers weakly: hold the configured ones.
    private static final List<Logger> HELD = new ArrayList<>();

    private ServerLogs() {
    }

    static void toFile(Path file) throws IOException {
        LogManager.getLogManager().reset();
        Logger root = Logger.getLogger("");
        AsyncConsoleHandler handler = AsyncConsoleHandler.writingTo(new FileOutputStream(file.toFile()));
        root.addHandler(handler);
        root.setLevel(Level.INFO);
        level("io.helidon", Level.WARNING);
        level("io.helidon.webserver.AccessLog", Level.INFO);
        level("io.helidon.webserver.LoomServer", Level.INFO);
        level("org.openxet", Level.INFO);
        HELD.add(root);
    }

    private static void level(String name, Level level) {
        Logger l = Logger.getLogger(name);
        l.setLevel(level);
        HELD.add(l);
    }
}
