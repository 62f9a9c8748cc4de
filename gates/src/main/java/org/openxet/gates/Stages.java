package org.openxet.gates;

import org.openxet.http.AnswerFormat;
import org.openxet.http.AnswerWriter;
import org.openxet.http.JsonBytes;
import org.openxet.http.ReconstructionJson;
import org.openxet.http.UrlSigner;
import org.openxet.protocol.MerkleHash;
import org.openxet.service.ReconstructionPlanner;
import org.openxet.service.ReconstructionPlanner.Plan;
import org.openxet.service.Services;
import org.openxet.service.SignedUrls;
import org.openxet.storage.FileRecord;
import org.sqlite.SQLiteConfig;

import java.io.OutputStream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Where a full answer's time goes, stage by stage, in process and one thread, with medians over many repetitions:
 * the file record read ({@code Index.file}; beside it the bare query and BLOB fetch on a connection of the gate's own,
 * to SQLite or to PostgreSQL as the server's index: what the read costs before decoding), the plan, URL signing alone (what {@code writeV2} signs, grouped the same way),
 * the whole {@code ReconstructionJson.writeV2} into a reused in-memory {@link JsonBytes} (signing included), and the
 * body hand-over: the HTTP median minus file, plan and the server's writer, i.e. Helidon, the socket, the client and any waiting
 * between them (the transport baseline measures the first three alone).
 */
final class Stages {
    private Stages() {
    }

    /**
     * Runs on a virtual thread, as the server's handlers do. On the gate's main thread the record read took 10-14 ms
     * in 8 runs of 10 (about 600 page faults a read, likely SQLite's 2.4 MB BLOB buffer in glibc's main arena: malloc's
     * mmap and trim thresholds set high removed it too) against the 1.5-2.4 ms a handler pays (BENCHMARKS-HISTORY).
     */
    static Map<String, Object> breakdown(Services services, String base, MerkleHash id, String scope, int reps,
                                         double httpMedianMs, String label) throws Exception {
        try (ExecutorService thread = Executors.newVirtualThreadPerTaskExecutor()) {
            return thread.submit(() -> breakdownHere(services, base, id, scope, reps, httpMedianMs, label)).get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) throw cause;
            throw e;
        }
    }

    private static Map<String, Object> breakdownHere(Services services, String base, MerkleHash id, String scope,
                                                     int reps, double httpMedianMs, String label) throws Exception {
        ReconstructionPlanner planner = new ReconstructionPlanner(services.index());
        SignedUrls urls = new SignedUrls(services.secrets().urlKey(), services.config().urlsTtl().toSeconds(),
                services.clock());
        JsonBytes memory = new JsonBytes(null, 64 << 20);
        JsonBytes signed = new JsonBytes(null, 64 * 1024);
        int warm = Math.max(10, reps / 5);
        double[] file = new double[reps];
        double[] sql = new double[reps];
        double[] plan = new double[reps];
        double[] sign = new double[reps];
        double[] write = new double[reps];
        double[] server = new double[reps];
        double[] measure = new double[reps];
        AnswerWriter writer = new AnswerWriter(services.config().answerWriters());
        OutputStream discard = OutputStream.nullOutputStream();
        long bodyBytes = 0;
        int signatures = 0;
        String indexUrl = services.config().storage().indexUrl();
        boolean sqlite = indexUrl.isEmpty();
        try (Connection c = sqlite
                ? DriverManager.getConnection("jdbc:sqlite:" + services.config().dataDir().resolve("index.sqlite")
                        .toAbsolutePath(), readConfig().toProperties())
                : DriverManager.getConnection(indexUrl);
             PreparedStatement q = c.prepareStatement("SELECT f.size, f.xorb_refs, f.terms, f.sha256 FROM files f "
                     + "JOIN file_scopes s ON s.file_id = f.id AND s.scope = ? WHERE f.hash = ?")) {
            for (int i = -warm; i < reps; i++) {
                long t0 = System.nanoTime();
                FileRecord f = services.index().file(id, scope).orElseThrow();
                long t1 = System.nanoTime();
                Plan p = planner.plan(f, null);
                long t2 = System.nanoTime();
                signatures = SigningWork.perXorbEntry(new UrlSigner(urls, base, scope, urls.expiry()), p,
                        SigningWork.hex(p), signed);
                long t3 = System.nanoTime();
                memory.reset();
                ReconstructionJson.writeV2(memory, p, new UrlSigner(urls, base, scope, urls.expiry()));
                long t4 = System.nanoTime();
                q.setString(1, scope);
                q.setBytes(2, id.toBytes());
                try (ResultSet r = q.executeQuery()) {
                    r.next();
                    r.getLong(1);
                    r.getBytes(2);
                    r.getBytes(3);
                    r.getBytes(4);
                }
                long t5 = System.nanoTime();
                writer.write(AnswerFormat.V2, AnswerWriter.Body.of(discard), p, new UrlSigner(urls, base, scope, urls.expiry()));
                long t6 = System.nanoTime();
                long measured = ReconstructionJson.measureV2(p, new UrlSigner(urls, base, scope, urls.expiry()));
                long t7 = System.nanoTime();
                bodyBytes = memory.length();
                if (measured != bodyBytes) {
                    throw new IllegalStateException("measureV2 said " + measured + " bytes, writeV2 wrote " + bodyBytes);
                }
                if (i >= 0) {
                    file[i] = (t1 - t0) / 1e6;
                    plan[i] = (t2 - t1) / 1e6;
                    sign[i] = (t3 - t2) / 1e6;
                    write[i] = (t4 - t3) / 1e6;
                    sql[i] = (t5 - t4) / 1e6;
                    server[i] = (t6 - t5) / 1e6;
                    measure[i] = (t7 - t6) / 1e6;
                }
            }
        }
        double mFile = Stats.median(file);
        double mSql = Stats.median(sql);
        double mPlan = Stats.median(plan);
        double mSign = Stats.median(sign);
        double mWrite = Stats.median(write);
        double mServer = Stats.median(server);
        double handOver = httpMedianMs - mFile - mPlan - mServer;
        System.out.printf("stages of the %s (%,d-byte body, %,d URL signatures), medians of %d in-process runs:%n",
                label, bodyBytes, signatures, reps);
        System.out.printf("  file record read (Index.file)   %8s   min %s%n", Stats.ms(mFile), Stats.ms(Stats.min(file)));
        System.out.printf("    %-30s%8s   (the same query on a connection of the gate's own, not decoded)%n",
                "bare " + (sqlite ? "SQLite" : "PostgreSQL") + " query + BLOBs", Stats.ms(mSql));
        System.out.printf("  plan (ReconstructionPlanner)    %8s   min %s%n", Stats.ms(mPlan), Stats.ms(Stats.min(plan)));
        System.out.printf("  URL signing alone (UrlSigner)   %8s   min %s%n", Stats.ms(mSign), Stats.ms(Stats.min(sign)));
        System.out.printf("  JSON writing (writeV2, in mem)  %8s   min %s   (without signing ~%s)%n", Stats.ms(mWrite),
                Stats.ms(Stats.min(write)), Stats.ms(mWrite - mSign));
        System.out.printf("  length for Content-Length (measureV2) %s   min %s   (digit counts, no rendering)%n",
                Stats.ms(Stats.median(measure)), Stats.ms(Stats.min(measure)));
        System.out.printf("  the server's writer (AnswerWriter) %5s   min %s   (parallel segments, to a discarding stream)%n",
                Stats.ms(mServer), Stats.ms(Stats.min(server)));
        System.out.printf("  body hand-over (HTTP p50 %s - file, plan, AnswerWriter) ~%s%n", Stats.ms(httpMedianMs),
                Stats.ms(handOver));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("file_read", Stats.r3(mFile));
        out.put(sqlite ? "file_sqlite" : "file_postgres", Stats.r3(mSql));
        out.put("plan", Stats.r3(mPlan));
        out.put("sign", Stats.r3(mSign));
        out.put("write_v2", Stats.r3(mWrite));
        out.put("measure", Stats.r3(Stats.median(measure)));
        out.put("answer_writer", Stats.r3(mServer));
        out.put("hand_over", Stats.r3(handOver));
        out.put("http_p50", Stats.r3(httpMedianMs));
        return out;
    }

    /** The same connection settings as the index's readers. */
    private static SQLiteConfig readConfig() {
        SQLiteConfig cfg = new SQLiteConfig();
        cfg.setJournalMode(SQLiteConfig.JournalMode.WAL);
        cfg.setCacheSize(-65536);
        cfg.setReadOnly(true);
        return cfg;
    }
}
