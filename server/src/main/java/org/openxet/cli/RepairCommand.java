package org.openxet.cli;

import org.openxet.protocol.MerkleHash;
import org.openxet.service.Fsck;
import org.openxet.service.Repair;
import org.openxet.service.ServerConfig;
import org.openxet.service.Services;
import org.openxet.storage.IndexException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code openxet repair}: runs fsck, then quarantines every damaged or missing xorb ({@link Repair}) so that clients
 * upload it again. Beside a running server, like fsck. Exit 0 when everything found was acted on, 1 when something is
 * left that repair cannot restore (named in the output), 2 on a usage or storage error.
 */
@Command(name = "repair", description = {"Run fsck, then quarantine each damaged or missing xorb: its object is moved "
        + "under quarantine/ and its index row marked, so HEAD answers 404, the next upload of it is stored again and "
        + "the files using it come back. Reports what it cannot restore (damaged shard objects, files whose terms do "
        + "not fit a healthy xorb). Prints one JSON line last."})
public final class RepairCommand implements Callable<Integer> {
    @Mixin
    StorageOptions storage;

    @Mixin
    ScrubOptions scrub;

    record Output(List<String> quarantined, List<String> movedAside, List<String> notRepaired) {
    }

    @Override
    public Integer call() throws Exception {
        long bytesPerSecond = scrub.bytesPerSecond();
        ServerConfig cfg = storage.load();
        if (cfg.storage().indexUrl().isEmpty()) DataDirs.withIndex(cfg.dataDir());
        Repair.Report r;
        try (Services.Stores stores = Services.openStores(cfg); ProgressDisplay display = new ProgressDisplay("repair")) {
            Fsck.Report found = Fsck.check(stores.index(), stores.bucket(), scrub.deep, bytesPerSecond, display);
            display.close();
            r = Repair.apply(stores.index(), stores.bucket(), found, System.currentTimeMillis() / 1000);
        } catch (IndexException e) {
            // As fsck: the storage error is the documented exit 2, one line, not a stack trace.
            System.err.println("openxet repair: " + e.getMessage());
            return 2;
        }
        for (MerkleHash h : r.quarantined()) System.out.println("quarantined xorb " + h + ": clients will upload it again");
        for (String s : r.notRepaired()) System.out.println("not repaired: " + s);
        System.out.println(Json.line(new Output(r.quarantined().stream().map(MerkleHash::hex).toList(), r.movedAside(),
                r.notRepaired())));
        return r.notRepaired().isEmpty() ? 0 : 1;
    }
}
