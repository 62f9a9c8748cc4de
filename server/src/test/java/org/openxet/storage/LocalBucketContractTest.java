package org.openxet.storage;

import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/** The {@link Bucket} contract on the local filesystem. */
class LocalBucketContractTest extends BucketContractTest {
    @TempDir
    Path dir;

    @Override
    Bucket open() throws Exception {
        return new LocalBucket(dir.resolve("bucket"));
    }
}
