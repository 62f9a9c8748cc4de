package org.openxet.storage;

import org.openxet.protocol.MerkleHash;

import java.util.List;

/**
 * Everything one validated shard registers, applied by {@link Index#registerShard} in one transaction.
 *
 * @param shardHash      hash of the uploaded shard body (its identity)
 * @param scope          the repository scope of the uploading token
 * @param storedBytes    size of the stored shard object
 * @param files          files with their resolved terms
 * @param listedXorbs    the xorb blocks the shard lists (disclosed by dedup answers)
 * @param dedupChunks    global-dedup eligible chunks (§1.8) and the xorb holding each
 */
public record ShardCommit(MerkleHash shardHash, String scope, long storedBytes, List<FileRecord> files,
                          List<MerkleHash> listedXorbs, List<DedupChunk> dedupChunks) {

    public record DedupChunk(MerkleHash chunkHash, MerkleHash xorbHash) {
    }

    /** Every xorb the registration names: the files' terms', the listed blocks' and the dedup entries'. */
    public java.util.Set<MerkleHash> namedXorbs() {
        java.util.Set<MerkleHash> named = new java.util.LinkedHashSet<>(listedXorbs);
        for (FileRecord f : files) {
            named.addAll(java.util.Arrays.asList(f.xorbs()));
        }
        for (DedupChunk d : dedupChunks) {
            named.add(d.xorbHash());
        }
        return named;
    }
}
