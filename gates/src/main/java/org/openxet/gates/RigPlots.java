package org.openxet.gates;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogarithmicAxis;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

import java.awt.BasicStroke;
import java.awt.Color;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code gates/run rig-plot --in a.json,b.json,... --out DIR}: the rig's plots from the JSON lines its runs wrote with
 * {@code --out}, drawn with JFreeChart: {@code rig-p99.png}, p99 against offered rate with one line per index size
 * and backend (the median over the runs given for it; the 50 ms target marked), and {@code rig-histogram.png}, the
 * latency distribution at the histogram rate (1,000 req/s by default) of the first run of each, percentile against
 * milliseconds. The p99 axis is logarithmic: saturation is hundreds of milliseconds, the target 50.
 */
final class RigPlots {
    /** The options it reads ({@code gates/run} refuses any other). */
    static final Set<String> OPTIONS = Set.of("in", "out");

    private RigPlots() {
    }

    static int run(Args args) throws Exception {
        System.setProperty("java.awt.headless", "true"); // no display on a server or in CI
        String[] inputs = args.string("in", "").split(",");
        Path out = Path.of(args.string("out", "."));
        Files.createDirectories(out);
        ObjectMapper json = new ObjectMapper();
        // Runs of the same index size and backend make one line: per offered rate, the median of their p99s.
        Map<String, java.util.TreeMap<Double, java.util.List<Double>>> byLabel = new java.util.LinkedHashMap<>();
        XYSeriesCollection hist = new XYSeriesCollection();
        for (String in : inputs) {
            if (in.isBlank()) continue;
            JsonNode run = json.readTree(Files.readString(Path.of(in.trim())));
            String label = String.format(Locale.ROOT, "%s files, %s", size(run.get("files").asLong()),
                    run.get("backend").asText());
            var rates = byLabel.computeIfAbsent(label, k -> new java.util.TreeMap<>());
            for (Iterator<Map.Entry<String, JsonNode>> it = run.get("rates").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                rates.computeIfAbsent(Double.parseDouble(e.getKey()), k -> new java.util.ArrayList<>())
                        .add(e.getValue().get("p99_ms").asDouble());
            }
            String histLabel = label + " at " + run.get("histogram_rate").asInt() + " req/s";
            if (hist.getSeriesIndex(histLabel) < 0 && run.get("histogram").size() > 0) {
                XYSeries h = new XYSeries(histLabel);
                for (Iterator<Map.Entry<String, JsonNode>> it = run.get("histogram").fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = it.next();
                    h.add(Math.max(0.001, e.getValue().asDouble()), Double.parseDouble(e.getKey()));
                }
                hist.addSeries(h);
            }
        }
        XYSeriesCollection p99 = new XYSeriesCollection();
        byLabel.forEach((label, rates) -> {
            XYSeries line = new XYSeries(label);
            rates.forEach((rate, values) -> line.add(rate.doubleValue(), median(values)));
            p99.addSeries(line);
        });
        JFreeChart a = ChartFactory.createXYLineChart("Reconstruction p99 against offered rate (open loop)",
                "offered rate (requests/s)", "p99 latency (ms)", p99, PlotOrientation.VERTICAL, true, false, false);
        style(a);
        LogarithmicAxis p99Axis = new LogarithmicAxis("p99 latency (ms, log scale)");
        p99Axis.setAllowNegativesFlag(false);
        a.getXYPlot().setRangeAxis(p99Axis);
        ValueMarker target = new ValueMarker(RigGate.P99_LIMIT_MS, Color.RED, new BasicStroke(1.5f));
        target.setLabel("target: p99 50 ms");
        target.setLabelAnchor(org.jfree.chart.ui.RectangleAnchor.TOP_RIGHT);
        target.setLabelTextAnchor(org.jfree.chart.ui.TextAnchor.BOTTOM_RIGHT);
        a.getXYPlot().addRangeMarker(target);
        ChartUtils.saveChartAsPNG(out.resolve("rig-p99.png").toFile(), a, 900, 540);

        JFreeChart b = ChartFactory.createXYLineChart("Reconstruction latency distribution", "latency (ms, log scale)",
                "percentile", hist, PlotOrientation.VERTICAL, true, false, false);
        style(b);
        LogarithmicAxis ms = new LogarithmicAxis("latency (ms, log scale)");
        ms.setAllowNegativesFlag(false);
        b.getXYPlot().setDomainAxis(ms);
        ChartUtils.saveChartAsPNG(out.resolve("rig-histogram.png").toFile(), b, 900, 540);
        System.out.println("wrote " + out.resolve("rig-p99.png") + " and " + out.resolve("rig-histogram.png"));
        return 0;
    }

    private static double median(java.util.List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static void style(JFreeChart chart) {
        XYPlot plot = chart.getXYPlot();
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(true, true);
        plot.setRenderer(r);
    }

    private static String size(long files) {
        int exp = (int) Math.round(Math.log10(files));
        return Math.pow(10, exp) == files ? "10^" + exp : String.format(Locale.ROOT, "%,d", files);
    }
}
