-- openxet index in PostgreSQL, version 1: the logical schema of db/sqlite/0001_init.sql (same tables, columns and
-- packed layouts; see the comments there). Never edit a migration once it has landed: add a new file.
-- Hashes are their 32 raw bytes in bytea. Ids are identities; their order is registration order, which dedup answers
-- rely on (newest shard first), as SQLite's rowids are.

CREATE TABLE xorbs (
    id             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    hash           BYTEA   NOT NULL UNIQUE,
    chunk_count    INTEGER NOT NULL,
    unpacked_bytes BIGINT  NOT NULL,
    stored_bytes   BIGINT  NOT NULL,
    chunk_hashes   BYTEA   NOT NULL,
    layout         BYTEA   NOT NULL,
    created_at     BIGINT  NOT NULL
);

CREATE TABLE shards (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    hash         BYTEA  NOT NULL UNIQUE,
    stored_bytes BIGINT NOT NULL,
    created_at   BIGINT NOT NULL
);

CREATE TABLE shard_scopes (
    shard_id BIGINT NOT NULL REFERENCES shards (id),
    scope    TEXT   NOT NULL,
    PRIMARY KEY (shard_id, scope)
);

CREATE TABLE shard_xorbs (
    shard_id BIGINT NOT NULL REFERENCES shards (id),
    xorb_id  BIGINT NOT NULL REFERENCES xorbs (id),
    PRIMARY KEY (shard_id, xorb_id)
);

-- HEAD on a xorb under dedup isolation asks which shards listed it.
CREATE INDEX shard_xorbs_by_xorb ON shard_xorbs (xorb_id);

CREATE TABLE files (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    hash       BYTEA   NOT NULL UNIQUE,
    size       BIGINT  NOT NULL,
    term_count INTEGER NOT NULL,
    xorb_refs  BYTEA   NOT NULL,
    terms      BYTEA   NOT NULL,
    sha256     BYTEA,
    shard_id   BIGINT  NOT NULL REFERENCES shards (id),
    updated_at BIGINT  NOT NULL
);

CREATE TABLE file_scopes (
    scope   TEXT   NOT NULL,
    file_id BIGINT NOT NULL REFERENCES files (id),
    PRIMARY KEY (scope, file_id)
);

CREATE TABLE dedup_chunks (
    chunk_hash BYTEA  NOT NULL,
    shard_id   BIGINT NOT NULL REFERENCES shards (id),
    xorb_id    BIGINT NOT NULL REFERENCES xorbs (id),
    PRIMARY KEY (chunk_hash, shard_id)
);
