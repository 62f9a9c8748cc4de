package org.openxet.storage;

import java.util.List;

/**
 * An offline collection's hold on an index ({@code openxet gc}, {@link Index#collector}): while it is open nothing
 * else registers, and gc's queries exist only on it, so they cannot run without that proof. An index private to one
 * data dir has it for the asking (the caller holds the data dir's lock); a shared one only once every node is
 * stopped and none can start ({@link PostgresCollectorLock}).
 */
public interface Collector extends AutoCloseable {
    /**
     * Xorbs registered before {@code registeredBefore} (epoch seconds) that no registered shard lists, no dedup entry
     * names and no file's terms use: uploads whose shard never came.
     */
    List<Index.UnusedXorb> unusedXorbs(long registeredBefore) throws IndexException;

    /**
     * Drops the rows of the xorbs {@link #unusedXorbs} would return, in one transaction, and returns them. Their objects
     * must be deleted after this returns, never before: a row without its object would be a registered xorb whose
     * bytes are lost.
     */
    List<Index.UnusedXorb> forgetUnusedXorbs(long registeredBefore) throws IndexException;

    @Override
    void close() throws IndexException;
}
