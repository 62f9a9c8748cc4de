package org.openxet.gates;

import java.util.LinkedHashMap;
import java.util.Map;
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

    /** A gate: the options it takes, and its run (0, or 1 for a missed threshold, 2 for bad arguments). */
    private record Gate(Set<String> options, Run run) {
    }

    private interface Run {
        int run(Args args) throws Exception;
    }

    /** Every gate by name, in the order the usage lists them. */
    private static final Map<String, Gate> GATES = new LinkedHashMap<>();

    static {
        GATES.put("latency", new Gate(LatencyGate.OPTIONS, LatencyGate::run));
        GATES.put("commits", new Gate(CommitsGate.OPTIONS, CommitsGate::run));
        GATES.put("load", new Gate(LoadGate.OPTIONS, LoadGate::run));
        GATES.put("transfer", new Gate(TransferGate.OPTIONS, TransferGate::run));
        GATES.put("rig", new Gate(RigGate.OPTIONS, RigGate::run));
        GATES.put("rig-plot", new Gate(RigPlots.OPTIONS, RigPlots::run));
        GATES.put("restart", new Gate(RestartGate.OPTIONS, RestartGate::run));
    }

    /** The options {@code gate} takes, or null for no such gate. */
    static Set<String> options(String gate) {
        Gate g = GATES.get(gate);
        return g == null ? null : g.options();
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
            System.err.println("usage: gates/run " + String.join("|", GATES.keySet()) + " [--enforce] [options]");
            System.exit(2);
        }
        Gate gate = GATES.get(args.gate());
        if (gate == null) {
            System.err.println("unknown gate " + args.gate() + " (" + String.join(", ", GATES.keySet()) + ")");
            System.exit(2);
            return;
        }
        try {
            args.requireKnown(gate.options());
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
        }
        // The gates' own Helidon servers (the rig's bytes floor, the baselines) would log each start at INFO.
        HELIDON.setLevel(Level.WARNING);
        System.out.println(Machine.describe());
        int code = gate.run().run(args);
        System.out.flush();
        // Helidon and the HTTP client leave non-daemon threads behind: exit explicitly.
        System.exit(code == 2 ? 2 : args.enforce() ? code : 0);
    }
}
