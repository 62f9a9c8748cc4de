package org.openxet.gates;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

/**
 * GC pauses, heap allocation and process CPU time of this JVM between two points, so a gate can say how much CPU a
 * request burns (all threads, and of that the calling thread, which is the one-at-a-time client; on a shared machine
 * CPU time moves far less than wall time), how
 * many bytes it allocated and how much of a phase could be collector pauses. Allocation counts every platform
 * thread, so virtual threads' allocation shows up through their carriers; the gate's own client allocates almost
 * nothing per request.
 */
record JvmCounters(long gcCount, long gcMillis, long allocatedBytes, long cpuNanos, long callerCpuNanos) {
    static JvmCounters now() {
        long count = pauses();
        long millis = 0;
        for (GarbageCollectorMXBean gc : pausingCollectors()) {
            millis += Math.max(0, gc.getCollectionTime());
        }
        long allocated = -1;
        if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean t
                && t.isThreadAllocatedMemorySupported()) {
            allocated = t.getTotalThreadAllocatedBytes();
        }
        long cpu = -1;
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            cpu = os.getProcessCpuTime();
        }
        long caller = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        return new JvmCounters(count, millis, allocated, cpu, caller);
    }

    /** Collector pauses so far; read around one request, it says whether a pause fell inside it. */
    static long pauses() {
        long count = 0;
        for (GarbageCollectorMXBean gc : pausingCollectors()) {
            count += Math.max(0, gc.getCollectionCount());
        }
        return count;
    }

    private static java.util.List<GarbageCollectorMXBean> pausingCollectors() {
        // Every bean: G1's "G1 Concurrent GC" counts the Remark and Cleanup pauses of its concurrent cycles (a Remark
        // took 5-9 ms in the latency gate), which stop every thread as young collections do. Leaving it out, as this
        // did until 2026-11-30, hid those pauses from "GC pause inside".
        return ManagementFactory.getGarbageCollectorMXBeans();
    }

    JvmCounters since(JvmCounters before) {
        return new JvmCounters(gcCount - before.gcCount, gcMillis - before.gcMillis,
                allocatedBytes < 0 || before.allocatedBytes < 0 ? -1 : allocatedBytes - before.allocatedBytes,
                cpuNanos < 0 || before.cpuNanos < 0 ? -1 : cpuNanos - before.cpuNanos,
                callerCpuNanos < 0 || before.callerCpuNanos < 0 ? -1 : callerCpuNanos - before.callerCpuNanos);
    }

    String describe(int requests) {
        return String.format(java.util.Locale.ROOT, "per request: %.1f ms process CPU (%.1f of it the client thread), "
                        + "%.1f MB allocated; %d GC pauses, %d ms paused in all", cpuMillisPer(requests),
                callerCpuNanos < 0 ? Double.NaN : callerCpuNanos / 1e6 / requests,
                allocatedBytes < 0 ? Double.NaN : allocatedBytes / 1e6 / requests, gcCount, gcMillis);
    }

    double cpuMillisPer(int requests) {
        return cpuNanos < 0 ? Double.NaN : cpuNanos / 1e6 / requests;
    }
}
