package org.openxet.protocol.xorb;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.openxet.protocol.FormatException;

/**
 * The xorb validator takes untrusted upload bodies and stored objects: a typed refusal (FormatException, of which
 * HashMismatchException is one: a 400) or a validated xorb, never another exception. Seeds: the client's own xorbs.
 */
class XorbValidatorFuzzTest {
    @FuzzTest(maxDuration = "10s")
    void uploads(byte[] body) {
        try (XorbValidator v = new XorbValidator()) {
            v.validateUpload(body, body.length, null);
        } catch (FormatException refused) {
            // a 400 with a JSON body
        }
    }

    @FuzzTest(maxDuration = "10s")
    void storedObjects(byte[] object) {
        try (XorbValidator v = new XorbValidator()) {
            v.validateStored(object, object.length, null);
        } catch (FormatException refused) {
            // a damaged object
        }
    }
}
