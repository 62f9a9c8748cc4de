package org.openxet.service;

import io.helidon.config.Config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * One setting of {@code openxet serve} ({@link Settings} declares them all): its key under {@code openxet:} in the YAML
 * file, the environment variable Helidon maps to it, the value it takes when unset, how a value is read and checked,
 * and its README row. A value that cannot be used is refused with {@link ServerConfig.BadValue}, never replaced by
 * the default behind the operator's back.
 *
 * @param inEnv whether a variable can set it (a list cannot)
 */
public record Setting<T>(String key, T fallback, Reader<T> reader, boolean inEnv, String defaultText, String meaning) {
    /** Reads the setting's value from the {@code openxet} node, {@code fallback} when it is absent. */
    public interface Reader<T> {
        T read(Config openxet, String key, T fallback);
    }

    /** The same setting with its README default and meaning. */
    Setting<T> documented(String defaultText, String meaning) {
        return new Setting<>(key, fallback, reader, inEnv, defaultText, meaning);
    }

    /** {@code OPENXET_} and the key in capitals, {@code .} and {@code -} as {@code _} (Helidon maps both back). */
    public String env() {
        return envName(key);
    }

    static String envName(String key) {
        return "OPENXET_" + key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    T read(Config openxet) {
        return reader.read(openxet, key, fallback);
    }

    /** This setting's row of the README's configuration table. */
    String readmeRow() {
        return "| `" + key + "` | " + (inEnv ? "`" + env() + "`" : "—") + " | " + defaultText + " | " + meaning + " |";
    }

    static Setting<String> text(String key, String fallback) {
        return new Setting<>(key, fallback, (c, k, f) -> c.get(k).asString().map(String::trim).orElse(f), true, "", "");
    }

    static Setting<Path> path(String key, String fallback) {
        return new Setting<>(key, Path.of(fallback), (c, k, f) -> c.get(k).asString().map(String::trim).map(Path::of)
                .orElse(f), true, "", "");
    }

    static Setting<Integer> whole(String key, int fallback, int min, int max) {
        return new Setting<>(key, fallback, (c, k, f) -> (int) number(c, k, f, min, max), true, "", "");
    }

    static Setting<Long> whole(String key, long fallback, long min, long max) {
        return new Setting<>(key, fallback, (c, k, f) -> number(c, k, f, min, max), true, "", "");
    }

    /** A count whose {@code 0} (and absence) means {@code computed}, a default that depends on the machine. */
    static Setting<Integer> zeroMeans(String key, int computed) {
        return new Setting<>(key, computed, (c, k, f) -> {
            int n = (int) number(c, k, 0, 0, Integer.MAX_VALUE);
            return n == 0 ? f : n;
        }, true, "", "");
    }

    /** A comma-separated list of web origins ({@code scheme://host[:port]}) or {@code *}; empty = none. */
    static Setting<List<String>> origins(String key, List<String> fallback) {
        return new Setting<>(key, fallback, (c, k, f) -> {
            var raw = c.get(k).asString();
            if (raw.isEmpty()) return f;
            List<String> out = new ArrayList<>();
            for (String o : raw.get().split(",")) {
                String v = o.trim();
                if (v.isEmpty()) continue;
                if (!v.equals("*") && !ORIGIN.matcher(v).matches()) {
                    throw new ServerConfig.BadValue(k, raw.get(), "each entry must be * or scheme://host[:port]");
                }
                out.add(v);
            }
            return List.copyOf(out);
        }, true, "", "");
    }

    private static final Pattern ORIGIN =
            Pattern.compile("https?://([A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)*|\\[[0-9A-Fa-f:.]+])(:[0-9]{1,5})?");

    static Setting<Boolean> bool(String key, boolean fallback) {
        return new Setting<>(key, fallback, (c, k, f) -> {
            var raw = c.get(k).asString();
            if (raw.isEmpty()) return f;
            String v = raw.get().trim();
            if (v.equalsIgnoreCase("true")) return true;
            if (v.equalsIgnoreCase("false")) return false;
            throw new ServerConfig.BadValue(k, v, "must be true or false");
        }, true, "", "");
    }

    /** A duration longer than zero. */
    static Setting<Duration> duration(String key, Duration fallback) {
        return new Setting<>(key, fallback, Setting::positiveDuration, true, "", "");
    }

    /** A duration of zero (off) or longer. */
    static Setting<Duration> durationOrZero(String key, Duration fallback) {
        return new Setting<>(key, fallback, (c, k, f) -> {
            var raw = c.get(k).asString();
            if (raw.isPresent() && raw.get().trim().matches("0+[a-z]*")) return Duration.ZERO;
            return positiveDuration(c, k, f);
        }, true, "", "");
    }

    static Duration positiveDuration(Config c, String key, Duration fallback) {
        var raw = c.get(key).asString();
        if (raw.isEmpty()) return fallback;
        String v = raw.get().trim();
        Duration parsed;
        try {
            parsed = ServerConfig.parseDuration(v);
        } catch (IllegalArgumentException | java.time.format.DateTimeParseException e) {
            throw new ServerConfig.BadValue(key, v, "not a duration (e.g. 500ms, 90s, 20m, 1h, 7d, or ISO-8601 PT1H)");
        }
        if (parsed.isNegative() || parsed.isZero()) {
            throw new ServerConfig.BadValue(key, v, "must be longer than zero");
        }
        return parsed;
    }

    private static long number(Config c, String key, long fallback, long min, long max) {
        var raw = c.get(key).asString();
        if (raw.isEmpty()) return fallback;
        String v = raw.get().trim();
        long n;
        try {
            n = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new ServerConfig.BadValue(key, v, "not a whole number");
        }
        if (n < min || n > max) {
            throw new ServerConfig.BadValue(key, v, "must be between " + min + " and " + max);
        }
        return n;
    }
}
