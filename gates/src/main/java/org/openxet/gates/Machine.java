package org.openxet.gates;

import java.nio.file.Files;
import java.nio.file.Path;

/** What the gates run on, printed first so a log tells machine types apart. */
public final class Machine {
    private Machine() {
    }

    public static String cpu() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (Exception ignored) {
            // not Linux: fall through
        }
        return System.getProperty("os.arch") + " (model unknown)";
    }

    /** Adds the machine's fields (cpu, cores, load average, TCP congestion control) to a gate's last-line JSON. */
    public static void describe(java.util.Map<String, Object> json) {
        json.put("cpu", cpu());
        json.put("cores", cores());
        json.put("load_average", loadAverage());
        json.put("tcp_congestion_control", congestionControl());
    }

    /**
     * The kernel's default TCP congestion control, which every loopback answer goes through: on the development VM
     * (bbr) a 22.9 MB hand-over measured 13 ms p50 against 9-10 ms with cubic, ubuntu-latest's default.
     */
    public static String congestionControl() {
        try {
            return Files.readString(Path.of("/proc/sys/net/ipv4/tcp_congestion_control")).trim();
        } catch (Exception e) {
            return "unknown";
        }
    }

    public static int cores() {
        return Runtime.getRuntime().availableProcessors();
    }

    /** The 1, 5 and 15 minute load averages: on a shared machine, the context every number needs. */
    public static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (Exception e) {
            return "unknown";
        }
    }

    /** The collector's region size, which decides what is a humongous object (half a region or more). */
    static String g1Region() {
        return vmOptionMiB("G1HeapRegionSize");
    }

    /** The metaspace size at which the collector first starts a cycle for class metadata. */
    static String metaspaceThreshold() {
        return vmOptionMiB("MetaspaceSize");
    }

    /** A HotSpot option given in bytes, as whole MiB. */
    private static String vmOptionMiB(String name) {
        try {
            var bean = java.lang.management.ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
            return Long.parseLong(bean.getVMOption(name).getValue()) / (1 << 20) + " MiB";
        } catch (RuntimeException e) {
            return "unknown";
        }
    }

    public static String describe() {
        return "cpu: " + cpu() + "\ncores: " + cores() + "\njava: " + System.getProperty("java.vm.name") + " "
                + System.getProperty("java.runtime.version") + ", max heap "
                + Runtime.getRuntime().maxMemory() / (1 << 20) + " MiB, G1 region " + g1Region() + ", metaspace threshold "
                + metaspaceThreshold() + "\nos: " + System.getProperty("os.name") + " "
                + System.getProperty("os.version") + ", TCP congestion control " + congestionControl()
                + "\nload average: " + loadAverage();
    }
}
