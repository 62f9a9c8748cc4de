package org.openxet.gates;

/**
 * {@code gates/run NAME [--enforce] [options]}: prints the machine, human-readable progress, and one JSON object as
 * its last line. Without {@code --enforce} the exit code is 0 whatever the numbers (report mode); with it, a missed
 * threshold exits 1. Gates: {@code latency}, {@code commits}, {@code load}, {@code transfer} (report only), {@code rig} (the release rig), {@code rig-plot} (its plots) and {@code restart}
 * (a restarted node's first seconds under load).
 */
public final class GateMain {
    private GateMain() {
    }

    public static void main(String[] argv) throws Exception {
        Args args = Args.parse(argv);
        if (args.gate() == null) {
            System.err.println("usage: gates/run latency|commits|load|transfer|rig|rig-plot|restart [--enforce] [options]");
            System.exit(2);
        }
        System.out.println(Machine.describe());
        int code = switch (args.gate()) {
            case "latency" -> LatencyGate.run(args);
            case "commits" -> CommitsGate.run(args);
            case "load" -> LoadGate.run(args);
            case "transfer" -> TransferGate.run(args);
            case "rig" -> RigGate.run(args);
            case "rig-plot" -> RigPlots.run(args);
            case "restart" -> RestartGate.run(args);
            default -> {
                System.err.println("unknown gate " + args.gate() + " (latency, commits, load, transfer, rig, rig-plot, restart)");
                yield 2;
            }
        };
        System.out.flush();
        // Helidon and the HTTP client leave non-daemon threads behind: exit explicitly.
        System.exit(code == 2 ? 2 : args.enforce() ? code : 0);
    }
}
