package org.openxet.http;

import java.util.List;

/**
 * The paths stock clients call for the CAS routes whose path changed between hf_xet releases: the current spelling
 * first, then the older ones, each served by the same route (guard, handler, answer). Environments pin hf_xet through
 * huggingface_hub, so releases a year old still upload and download. What each release calls (xet-core's
 * {@code remote_client.rs} at each tag):
 * <ul>
 * <li>1.0.0 to 1.1.9 (2025-04 to 2025-08): {@code /xorb/…}, {@code /shard/{prefix}/{hash}} (PUT when it asks for a
 * synchronous commit, POST otherwise), {@code /chunk/…}, {@code /reconstruction/{id}}, {@code /reconstructions?}.</li>
 * <li>1.1.10 to 1.2.0 (2025-09 to 2025-10): {@code /xorbs/…}, {@code /shards}, {@code /chunks/…},
 * {@code /reconstructions/{id}}, {@code /reconstructions?}.</li>
 * <li>1.3.0 to 1.5.1 (2026-02 to 2026-06): {@code /v1/} everywhere but the shard upload ({@code /shards}) and the batch
 * ({@code /reconstructions?}).</li>
 * <li>1.5.2 on: {@code /v1/shards}; 1.6.0 on: {@code /v1/reconstructions?} and {@code /v2/shards} too.</li>
 * </ul>
 * The bodies never changed: the same xorb and shard formats, the same v1 reconstruction JSON ({@code cas_types} at
 * v1.0.0 and now). A shard's older path names its hash; the route takes the body alone, as {@code /v1/shards} does,
 * and validates it whole.
 */
final class ClientPaths {
    static final List<String> XORB = List.of("/v1/xorbs/{prefix}/{hash}", "/xorbs/{prefix}/{hash}",
            "/xorb/{prefix}/{hash}");
    static final List<String> SHARD_UPLOAD = List.of("/v1/shards", "/shards", "/shard/{prefix}/{hash}");
    /** hf_xet 1.0.0 to 1.1.9 sent a shard with PUT here when it asked for a synchronous commit (every commit is). */
    static final String SHARD_UPLOAD_PUT = "/shard/{prefix}/{hash}";
    static final List<String> DEDUP = List.of("/v1/chunks/{prefix}/{hash}", "/chunks/{prefix}/{hash}",
            "/chunk/{prefix}/{hash}");
    static final List<String> RECONSTRUCTION_V1 = List.of("/v1/reconstructions/{file_id}",
            "/reconstructions/{file_id}", "/reconstruction/{file_id}");
    static final List<String> BATCH_RECONSTRUCTION = List.of("/v1/reconstructions", "/reconstructions");

    private ClientPaths() {
    }
}
