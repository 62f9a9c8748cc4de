-- The Hub's bucket repositories: the logical schema of db/sqlite/0003_bucket_repos.sql (see the comments there).
-- Paths use the "C" collation: the tree listing's ranges need byte order, whatever the database's default collation.
CREATE TABLE bucket_repos (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name        TEXT    NOT NULL UNIQUE,
    private     BOOLEAN NOT NULL,
    created_at  BIGINT  NOT NULL,
    updated_at  BIGINT  NOT NULL,
    size        BIGINT  NOT NULL,
    total_files BIGINT  NOT NULL
);

CREATE TABLE bucket_repo_files (
    repo_id      BIGINT NOT NULL REFERENCES bucket_repos (id),
    path         TEXT COLLATE "C" NOT NULL,
    xet_hash     BYTEA  NOT NULL,
    size         BIGINT NOT NULL,
    mtime        BIGINT NOT NULL,
    content_type TEXT,
    uploaded_at  BIGINT NOT NULL,
    PRIMARY KEY (repo_id, path)
);
