package org.openxet.service;

import org.openxet.storage.OwnerOnly;

import java.io.IOException;
import java.io.InputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Properties;

/**
 * The server's three keys, generated on first start and kept in {@code <data>/secrets.properties} (mode 0600): the
 * token signing key (HS256), the URL signing key (fetch URLs), and the global-dedup HMAC key (§1.7). Restarting on the
 * same data directory keeps tokens, URLs and dedup answers valid.
 */
public record Secrets(byte[] tokenKey, byte[] urlKey, byte[] dedupKey) {
    public static final String FILE = "secrets.properties";

    public static Secrets loadOrCreate(Path dataDir) throws IOException {
        Path file = dataDir.resolve(FILE);
        if (!Files.exists(file)) {
            SecureRandom random = new SecureRandom();
            Properties p = new Properties();
            for (String name : new String[]{"token-key", "url-key", "dedup-key"}) {
                byte[] key = new byte[32];
                random.nextBytes(key);
                p.setProperty(name, HexFormat.of().formatHex(key));
            }
            ByteArrayOutputStream text = new ByteArrayOutputStream();
            p.store(text, "openxet keys: keep private; deleting this file invalidates every token and URL");
            // Two processes starting at once: the first one's keys win, both then read them.
            OwnerOnly.createIfAbsent(file, text.toByteArray());
        }
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            p.load(in);
        }
        return new Secrets(key(p, "token-key", file), key(p, "url-key", file), key(p, "dedup-key", file));
    }

    /**
     * A digest of the token and URL keys, which every node of a shared index must hold alike (the dedup key may
     * differ: each dedup answer carries its own). Safe to store: it reveals nothing about the keys.
     */
    public byte[] fingerprint() {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update("openxet node keys v1\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            sha.update(tokenKey);
            sha.update(urlKey);
            return sha.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    private static byte[] key(Properties p, String name, Path file) throws IOException {
        String v = p.getProperty(name);
        if (v == null || v.length() != 64) {
            throw new IOException(file + ": " + name + " missing or not 32 hex bytes");
        }
        return HexFormat.of().parseHex(v);
    }
}
