package org.openxet.cli;

import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.openxet.service.Progress;

/**
 * Progress on stderr: a bar with its rate and ETA (each stage's total from the index's row counts) when run on a
 * terminal, a line every 10 s otherwise (a cron job's log).
 */
final class ProgressDisplay implements Progress, AutoCloseable {
    private final String command;
    private final boolean terminal = System.console() != null && System.console().isTerminal();
    private ProgressBar bar;
    private String stage = "";
    private long items;
    private long bytes;
    private long lastLine = System.nanoTime();

    ProgressDisplay(String command) {
        this.command = command;
    }

    @Override
    public void stage(String name, long total) {
        closeBar();
        stage = name;
        items = 0;
        if (terminal) {
            bar = new ProgressBarBuilder().setTaskName(command + " " + name).setInitialMax(total)
                    .setStyle(ProgressBarStyle.ASCII).setConsumer(new ConsoleProgressBarConsumer(
                            System.err)).showSpeed().build();
        }
    }

    @Override
    public void item(long bytesRead) {
        items++;
        bytes += bytesRead;
        if (bar != null) {
            bar.step();
        } else if (System.nanoTime() - lastLine > 10_000_000_000L) {
            lastLine = System.nanoTime();
            System.err.printf("%s %s: %,d done, %,d MB read%n", command, stage, items, bytes / 1_000_000);
        }
    }

    private void closeBar() {
        if (bar != null) bar.close();
        bar = null;
    }

    @Override
    public void close() {
        closeBar();
    }
}
