-- openxet index, version 1. Never edit a migration once it has landed: add a new file.
-- Hashes are stored as their 32 raw bytes. Per-chunk and per-term data is packed into BLOBs so that the read path
-- plans a reconstruction from one row (§5.4) and shard validation reads one row per xorb.

-- A validated xorb: chunk hashes (32 bytes each, chunk order) and its layout: n little-endian u32 record end
-- offsets B[k] followed by n u32 cumulative uncompressed ends U[k] (the stored footer's boundary section, §3.5).
CREATE TABLE xorbs (
    id             INTEGER PRIMARY KEY,
    hash           BLOB    NOT NULL UNIQUE,
    chunk_count    INTEGER NOT NULL,
    unpacked_bytes INTEGER NOT NULL,
    stored_bytes   INTEGER NOT NULL,
    chunk_hashes   BLOB    NOT NULL,
    layout         BLOB    NOT NULL,
    created_at     INTEGER NOT NULL
);

-- A registered shard (keyed by the hash of the uploaded body) and the scopes that uploaded it.
CREATE TABLE shards (
    id           INTEGER PRIMARY KEY,
    hash         BLOB    NOT NULL UNIQUE,
    stored_bytes INTEGER NOT NULL,
    created_at   INTEGER NOT NULL
);

CREATE TABLE shard_scopes (
    shard_id INTEGER NOT NULL REFERENCES shards (id),
    scope    TEXT    NOT NULL,
    PRIMARY KEY (shard_id, scope)
) WITHOUT ROWID;

-- The xorb blocks a shard listed: what a global-dedup answer discloses (§4.8).
CREATE TABLE shard_xorbs (
    shard_id INTEGER NOT NULL REFERENCES shards (id),
    xorb_id  INTEGER NOT NULL REFERENCES xorbs (id),
    PRIMARY KEY (shard_id, xorb_id)
) WITHOUT ROWID;

-- A file: its reconstruction terms, packed. `xorb_refs` holds the distinct xorb hashes of its terms (32 bytes
-- each); `terms` holds 6 little-endian u32 per term: index into xorb_refs, chunk start, chunk end (exclusive),
-- unpacked bytes, stored byte start, stored byte end (exclusive) — the term's byte range is resolved at
-- registration so that a full-file answer needs no other row.
CREATE TABLE files (
    id         INTEGER PRIMARY KEY,
    hash       BLOB    NOT NULL UNIQUE,
    size       INTEGER NOT NULL,
    term_count INTEGER NOT NULL,
    xorb_refs  BLOB    NOT NULL,
    terms      BLOB    NOT NULL,
    sha256     BLOB,
    shard_id   INTEGER NOT NULL REFERENCES shards (id),
    updated_at INTEGER NOT NULL
);

-- Per-scope visibility: a file is readable by a token of scope S only when a shard registered it under S.
CREATE TABLE file_scopes (
    scope   TEXT    NOT NULL,
    file_id INTEGER NOT NULL REFERENCES files (id),
    PRIMARY KEY (scope, file_id)
) WITHOUT ROWID;

-- Global-dedup index (§1.8): an eligible chunk, the xorb that holds it, and the shard that registered it.
CREATE TABLE dedup_chunks (
    chunk_hash BLOB    NOT NULL,
    shard_id   INTEGER NOT NULL REFERENCES shards (id),
    xorb_id    INTEGER NOT NULL REFERENCES xorbs (id),
    PRIMARY KEY (chunk_hash, shard_id)
) WITHOUT ROWID;
