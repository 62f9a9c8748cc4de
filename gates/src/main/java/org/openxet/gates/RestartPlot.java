package org.openxet.gates;

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
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * The restart gate's plot ({@code --plot DIR}): {@code restart-p99-<rate>.png}, reads' p99 in each one-second window
 * after ready, one line per variant (the median over the repeats), the 50 ms target marked. The axis is logarithmic:
 * a cold JVM's first seconds are hundreds of milliseconds, a warm one's a few.
 */
final class RestartPlot {
    private RestartPlot() {
    }

    /** One variant at one rate: p99 per window. */
    record Line(String variant, int rate, double[] p99) {
    }

    static List<Path> write(Path dir, List<Line> lines, long files, String backend) throws Exception {
        System.setProperty("java.awt.headless", "true"); // no display on a server or in CI
        Files.createDirectories(dir);
        List<Path> out = new ArrayList<>();
        for (int rate : new TreeSet<>(lines.stream().map(Line::rate).toList())) {
            XYSeriesCollection series = new XYSeriesCollection();
            for (Line l : lines) {
                if (l.rate() != rate) continue;
                XYSeries s = new XYSeries(l.variant());
                for (int w = 0; w < l.p99().length; w++) {
                    if (!Double.isNaN(l.p99()[w])) s.add(w + 1, Math.max(0.1, l.p99()[w]));
                }
                series.addSeries(s);
            }
            JFreeChart chart = ChartFactory.createXYLineChart(String.format(Locale.ROOT,
                            "A restarted node's first seconds: %,d req/s of the rig mix, %,d files (%s)", rate, files, backend),
                    "second after /ready", "reads' p99 (ms)", series, PlotOrientation.VERTICAL, true, false, false);
            XYPlot plot = chart.getXYPlot();
            plot.setBackgroundPaint(Color.WHITE);
            plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
            plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
            plot.setRenderer(new XYLineAndShapeRenderer(true, true));
            LogarithmicAxis axis = new LogarithmicAxis("reads' p99 in the second (ms, log scale)");
            axis.setAllowNegativesFlag(false);
            plot.setRangeAxis(axis);
            ValueMarker target = new ValueMarker(RestartGate.P99_LIMIT_MS, Color.RED, new BasicStroke(1.5f));
            target.setLabel("target: p99 50 ms");
            target.setLabelAnchor(org.jfree.chart.ui.RectangleAnchor.TOP_RIGHT);
            target.setLabelTextAnchor(org.jfree.chart.ui.TextAnchor.BOTTOM_RIGHT);
            plot.addRangeMarker(target);
            Path png = dir.resolve("restart-p99-" + rate + ".png");
            ChartUtils.saveChartAsPNG(png.toFile(), chart, 900, 540);
            out.add(png);
        }
        return out;
    }
}
