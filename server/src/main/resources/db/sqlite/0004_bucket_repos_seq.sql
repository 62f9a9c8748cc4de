-- A bucket's sequence number: one more for every write (create or batch), assigned inside the write's transaction
-- under the bucket row's write, and recorded with the write in the blob bucket (bucket-changes/, see
-- service/BucketChanges.java) before its commit. openxet index rebuild replays a bucket's records in this order: the
-- index's order, whichever node wrote them.
ALTER TABLE bucket_repos ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
-- A deleted bucket keeps its row (and so its sequence number) as a tombstone, without files: a bucket created again
-- under the name goes on from the number, so the records of both lives replay in one order. NULL: not deleted.
ALTER TABLE bucket_repos ADD COLUMN deleted_at INTEGER;
