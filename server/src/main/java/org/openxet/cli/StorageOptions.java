package org.openxet.cli;

import org.openxet.service.ServerConfig;
import picocli.CommandLine.Option;

import java.nio.file.Path;

/** {@code --data} and {@code --config}, as every command on a server's storage takes them (a picocli mixin). */
final class StorageOptions {
    @Option(names = "--data", paramLabel = "DIR", description = "Data directory of the server (default ./data).")
    Path data;

    @Option(names = "--config", paramLabel = "FILE", description = "The server's YAML configuration file, if it has one.")
    Path config;

    /** The server's configuration: the file and the environment, then {@code --data} over them. */
    ServerConfig load() {
        ServerConfig cfg = ServerConfig.load(config);
        return data == null ? cfg : cfg.withDataDir(data);
    }
}
