package org.openxet.gates;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
