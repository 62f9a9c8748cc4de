-- A bucket's sequence number: one more for every write (create or batch), assigned inside the write's transaction
-- under the bucket row's write, and recorded with the write in the blob bucket (bucket-changes/, see
-- service/BucketChanges.java) before its commit. openxet index rebuild replays a bucket's records in this order: the
-- index's order, whichever node wrote them.
ALTER TABLE bucket_repos ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
