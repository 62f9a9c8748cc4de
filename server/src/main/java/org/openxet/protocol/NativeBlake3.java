package org.openxet.protocol;

/** Placeholder until the FFM binding lands: always fails to load. */
public final class NativeBlake3 {
    static Blake3 load() {
        throw new UnsatisfiedLinkError("native BLAKE3 not built yet");
    }
}
