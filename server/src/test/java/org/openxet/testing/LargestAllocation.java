package org.openxet.testing;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The largest single object this thread allocates while running some work, as Flight Recorder sees it: every
 * allocation that does not fit a thread-local buffer (any large array does not) is an event with its size. Tells
 * "streamed in 128 KiB pieces" from "copied into one array", which a count of allocated bytes cannot.
 */
public final class LargestAllocation {
    private LargestAllocation() {
    }

    public interface Work {
        void run() throws Exception;
    }

    public static long during(Work work) throws Exception {
        long thread = Thread.currentThread().threadId();
        Path file = Files.createTempFile("openxet-allocations", ".jfr");
        try (Recording recording = new Recording()) {
            recording.enable("jdk.ObjectAllocationOutsideTLAB");
            recording.enable("jdk.ObjectAllocationInNewTLAB");
            recording.start();
            work.run();
            recording.stop();
            recording.dump(file);
            long largest = 0;
            for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
                if (e.getThread() != null && e.getThread().getJavaThreadId() == thread) {
                    largest = Math.max(largest, e.getLong("allocationSize"));
                }
            }
            return largest;
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
