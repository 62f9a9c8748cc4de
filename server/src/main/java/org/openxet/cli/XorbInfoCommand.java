package org.openxet.cli;

import org.openxet.protocol.FormatException;
import org.openxet.protocol.InvalidHashException;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.xorb.ValidatedXorb;
import org.openxet.protocol.xorb.XorbFormat;
import org.openxet.protocol.xorb.XorbValidator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code openxet xorb-info}: validate a xorb upload body or stored object, as the server would. */
@Command(name = "xorb-info", description = "Validate a xorb upload body or stored object and describe it (one JSON line).")
public final class XorbInfoCommand implements Callable<Integer> {
    @Option(names = "--expect", paramLabel = "HASH", description = "Fail unless the xorb hash is HASH.")
    String expect;

    @Parameters(index = "0", paramLabel = "FILE")
    Path file;

    record Compression(int none, int lz4, int bg4Lz4) {
    }

    record Result(String xorbHash, int chunks, Compression compression, long bodyBytes, long compressedBytes,
                  long unpackedBytes, boolean hasFooter, long storedBytes) {
    }

    @Override
    public Integer call() throws IOException {
        MerkleHash expected = null;
        if (expect != null) {
            try {
                expected = MerkleHash.parse(expect);
            } catch (InvalidHashException e) {
                System.err.println("openxet: --expect: " + e.getMessage());
                return 2;
            }
        }
        long size = Files.size(file);
        if (size > XorbFormat.MAX_UPLOAD_BYTES) {
            System.err.println("openxet: " + file + ": " + size + " bytes is larger than any valid xorb");
            return 1;
        }
        byte[] body = Files.readAllBytes(file);
        try (XorbValidator validator = new XorbValidator()) {
            ValidatedXorb v = validator.validateUpload(body, body.length, expected);
            int[] s = v.schemeCounts();
            System.out.println(Json.line(new Result(v.hash().hex(), v.chunks().count(), new Compression(s[0], s[1], s[2]),
                    body.length, v.compressedBytes(), v.chunks().unpackedBytes(), v.hadFooter(), v.storedSize())));
            return 0;
        } catch (FormatException e) {
            System.err.println("openxet: " + file + ": invalid xorb: " + e.getMessage());
            return 1;
        }
    }
}
