package org.openxet.http;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * The Range and X-Range-Dirty header parsers take any client text: a typed refusal (HttpError, a 400) or ranges, never
 * another exception. Seeds: RangeHeaderFuzzTestInputs/ (what the stock clients send, and edge cases).
 */
class RangeHeaderFuzzTest {
    @FuzzTest(maxDuration = "10s")
    void rangeHeaders(String header) {
        try {
            RangeHeader.parse(header);
        } catch (HttpError refused) {
            // a 400 with a JSON body
        }
    }

    @FuzzTest(maxDuration = "10s")
    void dirtyRanges(String header) {
        try {
            ReconstructionRoutes.dirtyRanges(header);
        } catch (HttpError refused) {
            // a 400 with a JSON body
        }
    }
}
