package org.openxet.gates;

import org.openxet.http.JsonBytes;
import org.openxet.http.ReconstructionJson;
import org.openxet.http.UrlSigner;
import org.openxet.service.FetchDescriptors;
import org.openxet.service.ReconstructionPlanner.Plan;

/**
 * URL signing on its own, over a plan's fetch descriptors, for the latency gate's stage breakdown and the signing
 * bench. Each URL goes into {@code out}, which is reset per xorb so it stays small.
 */
public final class SigningWork {
    private SigningWork() {
    }

    /** Quoted-free hex of each of the plan's xorbs (what the answer writer computes once per answer). */
    public static byte[][] hex(Plan p) {
        byte[][] hex = new byte[p.file().xorbs().length][];
        for (int i = 0; i < hex.length; i++) hex[i] = p.file().xorbs()[i].hexBytes();
        return hex;
    }

    /**
     * What {@link ReconstructionJson#writeV2} signs: per xorb, entries grouped by {@link ReconstructionJson#entryEnd},
     * one URL each (the grant's encoding included). Returns the URL count.
     */
    public static int perXorbEntry(UrlSigner signer, Plan p, byte[][] hex, JsonBytes out) {
        int n = 0;
        for (int x : p.xorbOrder()) {
            int[] d = p.fetch()[x];
            out.reset();
            for (int from = 0, to; from < FetchDescriptors.count(d); from = to) {
                to = ReconstructionJson.entryEnd(d, from);
                signer.write(out, hex[x], d, from, to);
                n++;
            }
        }
        return n;
    }

    /** One URL per fetch descriptor (the v1 answer's shape). Returns the URL count. */
    public static int perDescriptor(UrlSigner signer, Plan p, byte[][] hex, JsonBytes out) {
        int n = 0;
        for (int x : p.xorbOrder()) {
            int[] d = p.fetch()[x];
            out.reset();
            for (int k = 0; k < FetchDescriptors.count(d); k++) {
                signer.write(out, hex[x], d, k, k + 1);
                n++;
            }
        }
        return n;
    }
}
