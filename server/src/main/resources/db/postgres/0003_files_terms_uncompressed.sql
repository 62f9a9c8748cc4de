-- A file's terms are read whole on every reconstruction, and PostgreSQL's default pglz compression of a 100,000-term
-- record (2.4 MB) costs more to undo than it saves: detoasting it took 4.6-5.7 ms with pglz against 2.3-2.8 ms stored
-- uncompressed (EXPLAIN ANALYZE, four interleaved rounds, docs/BENCHMARKS.md). Rows written from now on are stored
-- out of line, uncompressed; existing rows keep their compression until rewritten.

ALTER TABLE files ALTER COLUMN terms SET STORAGE EXTERNAL;
