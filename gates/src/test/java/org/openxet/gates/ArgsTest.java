package org.openxet.gates;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A gate's options: the ones it reads are the ones it declares, and any other is refused before it runs. */
class ArgsTest {
    /** An option read in the gates' sources: {@code args.integer("files", ...)} and its kind. */
    private static final Pattern READ = Pattern.compile("args\\.(?:integer|number|string|flag)\\(\"([^\"]+)\"");

    @Test
    void aMisspeltOptionIsRefusedWithTheOptionsTheGateTakes() {
        Args args = Args.parse(new String[] {"rig", "--files", "100000", "--rate", "1000"});
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> args.requireKnown(GateMain.options("rig")));
        assertTrue(e.getMessage().startsWith("gates/run rig takes no option --rate; it takes --enforce --build-only"),
                e.getMessage());
        assertTrue(e.getMessage().contains(" --rates "), e.getMessage());
    }

    @Test
    void helpIsAnOptionNoGateTakes() {
        for (String gate : List.of("latency", "commits", "load", "transfer", "rig", "rig-plot", "restart")) {
            Args args = Args.parse(new String[] {gate, "--help"});
            assertThrows(IllegalArgumentException.class, () -> args.requireKnown(GateMain.options(gate)), gate);
        }
    }

    @Test
    void eachGateTakesWhatItsPartsRead() {
        Args.parse(new String[] {"restart", "--files", "20000", "--index-url", "jdbc:postgresql://x", "--zipf", "1.2",
                "--server-opts", "-Xmx1g", "--variants", "aot+warmup", "--enforce"})
                .requireKnown(GateMain.options("restart"));
        Args.parse(new String[] {"load", "--index-url", "u", "--server-jar", "j", "--rates", "1000"})
                .requireKnown(GateMain.options("load"));
        assertEquals(Set.of("in", "out"), GateMain.options("rig-plot"));
        assertEquals(null, GateMain.options("no-such-gate"));
    }

    @Test
    void everyOptionAClassReadsIsOneItDeclares() throws IOException, ReflectiveOperationException {
        Path sources = Path.of("src/main/java/org/openxet/gates");
        int reads = 0;
        try (Stream<Path> files = Files.list(sources)) {
            for (Path file : files.sorted().toList()) {
                Matcher m = READ.matcher(Files.readString(file));
                Set<String> read = new TreeSet<>();
                while (m.find()) read.add(m.group(1));
                if (read.isEmpty()) continue;
                String name = file.getFileName().toString().replace(".java", "");
                Field declared = Class.forName("org.openxet.gates." + name).getDeclaredField("OPTIONS");
                declared.setAccessible(true);
                @SuppressWarnings("unchecked")
                Set<String> options = (Set<String>) declared.get(null);
                assertNotNull(options, name);
                for (String key : read) {
                    assertTrue(options.contains(key), name + " reads --" + key + " but its OPTIONS do not name it");
                    reads++;
                }
            }
        }
        // The scan found the gates' reads at all (about 50 today), so a changed idiom cannot pass it by finding none.
        assertTrue(reads > 40, "options read: " + reads);
    }
}
