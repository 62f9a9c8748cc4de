-- The Hub's bucket repositories (hf buckets, @huggingface/hub with a bucket repo), served by openxet itself: a bucket
-- is a flat map from path to Xet file hash, changed by the NDJSON batch call (docs/DESIGN.md, "Bucket repositories").
-- Named bucket_repos so they are never confused with the object store openxet keeps its xorbs in.
-- size and total_files are kept by every batch (under the row's write), so bucket info costs one row.
CREATE TABLE bucket_repos (
    id          INTEGER PRIMARY KEY,
    name        TEXT    NOT NULL UNIQUE, -- namespace/name, as in the scope buckets/namespace/name
    private     INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,        -- epoch milliseconds
    updated_at  INTEGER NOT NULL,        -- epoch milliseconds of the last batch
    size        INTEGER NOT NULL,
    total_files INTEGER NOT NULL
);

-- One file of a bucket. Paths are compared as bytes (SQLite's BINARY collation over UTF-8: code point order), which
-- the tree listing's ranges rely on: everything under "a/b/" sorts between "a/b/" and "a/b0".
CREATE TABLE bucket_repo_files (
    repo_id      INTEGER NOT NULL REFERENCES bucket_repos (id),
    path         TEXT    NOT NULL,
    xet_hash     BLOB    NOT NULL,
    size         INTEGER NOT NULL,
    mtime        INTEGER NOT NULL,       -- epoch milliseconds: the client's, or the upload time when it sent none
    content_type TEXT,
    uploaded_at  INTEGER NOT NULL,       -- epoch milliseconds
    PRIMARY KEY (repo_id, path)
) WITHOUT ROWID;
