package org.openxet.storage;

/**
 * The key rules every {@link Bucket} applies, so a key one implementation accepts the other accepts too: relative,
 * no empty segment, no {@code ..}, and nothing under {@code .tmp} (where {@link LocalBucket} keeps unfinished puts).
 */
final class BucketKeys {
    static final String TMP = ".tmp";

    private BucketKeys() {
    }

    static void validate(String key) {
        if (key.isEmpty() || key.startsWith("/") || key.endsWith("/") || key.contains("..") || key.contains("//")
                || key.startsWith(TMP)) {
            throw new IllegalArgumentException("invalid bucket key: " + key);
        }
    }
}
