package org.openxet.gates;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** {@code NAME [--enforce] [--key value]...}: the gate's name, the enforce switch and its options. */
public record Args(String gate, boolean enforce, Map<String, String> options) {
    public static Args parse(String[] argv) {
        String gate = null;
        boolean enforce = false;
        Map<String, String> options = new HashMap<>();
        List<String> rest = new ArrayList<>(List.of(argv));
        for (int i = 0; i < rest.size(); i++) {
            String a = rest.get(i);
            if (a.equals("--enforce")) {
                enforce = true;
            } else if (a.startsWith("--")) {
                String key = a.substring(2);
                String value;
                int eq = key.indexOf('=');
                if (eq >= 0) {
                    value = key.substring(eq + 1);
                    key = key.substring(0, eq);
                } else if (i + 1 < rest.size() && !rest.get(i + 1).startsWith("--")) {
                    value = rest.get(++i);
                } else {
                    value = "true";
                }
                options.put(key, value);
            } else if (gate == null) {
                gate = a;
            } else {
                throw new IllegalArgumentException("unexpected argument: " + a);
            }
        }
        return new Args(gate, enforce, options);
    }

    /**
     * Refuses an option the gate does not take. Without this a misspelt option ({@code --rate 1000}) ran the gate on
     * its defaults, and {@code --help} started a full rig.
     */
    public void requireKnown(Set<String> known) {
        for (String key : new TreeSet<>(options.keySet())) {
            if (!known.contains(key)) {
                StringBuilder takes = new StringBuilder();
                for (String k : new TreeSet<>(known)) takes.append(" --").append(k);
                throw new IllegalArgumentException("gates/run " + gate + " takes no option --" + key
                        + "; it takes --enforce" + takes
                        + " (gates/run --help; each gate's options and defaults: docs/BENCHMARKS.md)");
            }
        }
    }

    /** The options of a gate made of parts, each of which reads its own. */
    @SafeVarargs
    static Set<String> union(Set<String>... parts) {
        Set<String> all = new TreeSet<>();
        for (Set<String> part : parts) all.addAll(part);
        return Set.copyOf(all);
    }

    public int integer(String key, int dflt) {
        return options.containsKey(key) ? Integer.parseInt(options.get(key)) : dflt;
    }

    public double number(String key, double dflt) {
        return options.containsKey(key) ? Double.parseDouble(options.get(key)) : dflt;
    }

    public String string(String key, String dflt) {
        return options.getOrDefault(key, dflt);
    }

    public boolean flag(String key) {
        return Boolean.parseBoolean(options.getOrDefault(key, "false"));
    }
}
