package org.openxet.gates;

import java.util.Map;

/** The one-line JSON object each gate prints last: maps, lists (and arrays of numbers), numbers, strings and booleans. */
public final class Json {
    private Json() {
    }

    public static String of(Object v) {
        StringBuilder s = new StringBuilder();
        write(s, v);
        return s.toString();
    }

    private static void write(StringBuilder s, Object v) {
        if (v == null) {
            s.append("null");
        } else if (v instanceof Map<?, ?> m) {
            s.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!first) s.append(',');
                first = false;
                string(s, String.valueOf(e.getKey()));
                s.append(':');
                write(s, e.getValue());
            }
            s.append('}');
        } else if (v instanceof java.util.List<?> l) {
            s.append('[');
            for (int i = 0; i < l.size(); i++) {
                if (i > 0) s.append(',');
                write(s, l.get(i));
            }
            s.append(']');
        } else if (v instanceof double[] a) {
            write(s, java.util.Arrays.stream(a).boxed().toList());
        } else if (v instanceof long[] a) {
            write(s, java.util.Arrays.stream(a).boxed().toList());
        } else if (v instanceof Double d) {
            s.append(d.isNaN() || d.isInfinite() ? "null" : (d == Math.rint(d) && Math.abs(d) < 1e15
                    ? Long.toString(d.longValue()) : Double.toString(d)));
        } else if (v instanceof Number || v instanceof Boolean) {
            s.append(v);
        } else {
            string(s, v.toString());
        }
    }

    private static void string(StringBuilder s, String v) {
        s.append('"');
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c == '"' || c == '\\') {
                s.append('\\').append(c);
            } else if (c < 0x20) {
                s.append(String.format("\\u%04x", (int) c));
            } else {
                s.append(c);
            }
        }
        s.append('"');
    }
}
