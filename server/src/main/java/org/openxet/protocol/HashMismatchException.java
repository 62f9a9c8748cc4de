package org.openxet.protocol;

/** Content whose computed hash differs from the hash it was sent under. */
public final class HashMismatchException extends FormatException {
    private final MerkleHash expected;
    private final MerkleHash actual;

    public HashMismatchException(String what, MerkleHash expected, MerkleHash actual) {
        super(what + " hash mismatch: expected " + expected + ", computed " + actual);
        this.expected = expected;
        this.actual = actual;
    }

    public MerkleHash expected() {
        return expected;
    }

    public MerkleHash actual() {
        return actual;
    }
}
