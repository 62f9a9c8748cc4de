package org.openxet.gates;

import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@code gates/run NAME [--enforce] [options]}: prints the machine, human-readable progress, and one JSON object as
 * its last line. Without {@code --enforce} the exit code is 0 whatever the numbers (report mode); with it, a missed
 * threshold exits 1. Gates: {@code latency}, {@code commits}, {@code load}, {@code transfer} (report only), {@code rig} (the release rig), {@code rig-plot} (its plots) and {@code restart}
 * (a restarted node's first seconds under load).
 */
public final class GateMain {
    // JUL keeps loggers weakly: held here.
    private static final Logger HELIDON = Logger.getLogger("io.helidon");

    private GateMain() {
    }

    /** The options {@code gate} takes, or null for no such gate. */
    static Set<String> options(String gate) {
        return switch (gate) {
            case "latency" -> LatencyGate.OPTIONS;
            case "commits" -> CommitsGate.OPTIONS;
            case "load" -> LoadGate.OPTIONS;
            case "transfer" -> TransferGate.OPTIONS;
            case "rig" -> RigGate.OPTIONS;
            case "rig-plot" -> RigPlots.OPTIONS;
            case "restart" -> RestartGate.OPTIONS;
            default -> null;
        };
    }

    public static void main(String[] argv) throws Exception {
        Args args;
        try {
            args = Args.parse(argv);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        if (args.gate() == null) {
            System.err.println("usage: gates/run latency|commits|load|transfer|rig|rig-plot|restart [--enforce] [options]");
            System.exit(2);
        }
        Set<String> options = options(args.gate());
        if (options == null) {
            System.err.println("unknown gate " + args.gate()
                    + " (latency, commits, load, transfer, rig, rig-plot, restart)");
            System.exit(2);
        }
        try {
            args.requireKnown(options);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
        }
        // The gates' own Helidon servers (the rig's bytes floor, the baselines) would log each start at INFO.
        HELIDON.setLevel(Level.WARNING);
        System.out.println(Machine.describe());
        int code = switch (args.gate()) {
            case "latency" -> LatencyGate.run(args);
            case "commits" -> CommitsGate.run(args);
            case "load" -> LoadGate.run(args);
            case "transfer" -> TransferGate.run(args);
            case "rig" -> RigGate.run(args);
            case "rig-plot" -> RigPlots.run(args);
            case "restart" -> RestartGate.run(args);
            default -> throw new IllegalStateException(args.gate());
        };
        System.out.flush();
        // Helidon and the HTTP client leave non-daemon threads behind: exit explicitly.
        System.exit(code == 2 ? 2 : args.enforce() ? code : 0);
    }
}
