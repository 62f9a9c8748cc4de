-- A bucket's sequence number: db/sqlite/0004_bucket_repos_seq.sql (see the comments there). Assigned under the
-- bucket row's lock, so two nodes' batches on one bucket get consecutive numbers in their commit order.
ALTER TABLE bucket_repos ADD COLUMN seq BIGINT NOT NULL DEFAULT 0;
ALTER TABLE bucket_repos ADD COLUMN deleted_at BIGINT;
