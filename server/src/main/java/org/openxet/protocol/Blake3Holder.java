package org.openxet.protocol;

/** Picks the BLAKE3 backend once per process. */
final class Blake3Holder {
    static final Blake3 INSTANCE = choose();

    private Blake3Holder() {
    }

    private static Blake3 choose() {
        try {
            return NativeBlake3.load();
        } catch (Throwable t) {
            System.err.println("openxet: WARNING native BLAKE3 unavailable (" + t.getMessage()
                    + "); using the pure-Java BouncyCastle fallback, several times slower");
            return JavaBlake3.INSTANCE;
        }
    }
}
