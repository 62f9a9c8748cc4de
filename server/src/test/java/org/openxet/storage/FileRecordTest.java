package org.openxet.storage;

import org.junit.jupiter.api.Test;
import org.openxet.protocol.MerkleHash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

class FileRecordTest {
    private static final MerkleHash FILE = MerkleHash.ofWords(1, 2, 3, 4);
    private static final MerkleHash[] XORBS = {MerkleHash.ofWords(5, 6, 7, 8), MerkleHash.ofWords(9, 10, 11, 12)};
    // Two terms; the second's unpacked length is above 2^31, so it reads back as a negative int (unsigned on use).
    private static final int[] TERMS = {0, 0, 3, 4096, 0, 2000, 1, 7, 9, (int) 3_000_000_000L, 1234, 567_890};

    @Test
    void aRecordBuiltFromIntsReadsEachTermFieldBack() {
        FileRecord r = new FileRecord(FILE, 42, XORBS, TERMS, null);
        assertEquals(2, r.termCount());
        assertEquals(1, r.term(1, FileRecord.XORB));
        assertEquals(9, r.term(1, FileRecord.CHUNK_END));
        assertEquals(3_000_000_000L, Integer.toUnsignedLong(r.term(1, FileRecord.UNPACKED)));
        assertEquals(567_890, r.term(1, FileRecord.BYTE_END));
        assertArrayEquals(TERMS, r.terms());
    }

    @Test
    void aRecordReadFromItsRowKeepsTheDriversArrayInsteadOfDecodingACopy() {
        byte[] blob = Packing.ints(TERMS);
        FileRecord r = FileRecord.decode(FILE, 42, null, Packing.hashes(XORBS), blob);
        assertSame(blob, r.packedTerms());
        assertArrayEquals(TERMS, r.terms());
        assertEquals(2000, r.term(0, FileRecord.BYTE_END));
        assertArrayEquals(XORBS, r.xorbs());
    }

    @Test
    void theTermsAreStoredLittleEndianAsTheIndexHasAlwaysStoredThem() {
        byte[] blob = new FileRecord(FILE, 42, XORBS, TERMS, null).packedTerms();
        // The first term's chunk end (3) is its third int: bytes 8..11, least significant first.
        assertArrayEquals(new byte[]{3, 0, 0, 0}, java.util.Arrays.copyOfRange(blob, 8, 12));
    }

    @Test
    void aRowWhoseTermsAreNotWholeTermsIsRefused() {
        byte[] blob = new byte[4 * FileRecord.TERM_INTS + 4];
        assertThrows(IllegalArgumentException.class,
                () -> FileRecord.decode(FILE, 42, null, Packing.hashes(XORBS), blob));
    }
}
