-- A xorb whose object openxet repair moved aside (damaged or missing): its row stays (files, shards and dedup
-- entries name it), but every read treats it as absent until an upload of the same bytes stores it again.
ALTER TABLE xorbs ADD COLUMN quarantined_at BIGINT;
