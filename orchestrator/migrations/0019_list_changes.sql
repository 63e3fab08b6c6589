-- 0019: a change marker for the list's cursor cache (issue 23, deep pages).
--
-- A deep page is read from a cached keyset anchor (the key of a row at a known offset) instead
-- of walking the index from an end. An anchor is only right while the set of rows a list's WHERE
-- matches is unchanged. That WHERE uses only the counters' key columns (owner, group, status:
-- it is also the totals' WHERE), and every insert, delete or change of those columns already goes
-- through deployment_counts_add, in the writing transaction, on every replica. So each counter row
-- now also counts the changes that touched it: `changes` only grows, and the sum of `changes`
-- over the rows a WHERE matches is a per-scope generation that a list statement reads in its own
-- snapshot. Equal sums in two snapshots (the later one sees every commit the earlier one saw)
-- mean no matching row came, went or moved between them. Sort keys other than created_at and id
-- can change without touching the counters, so the store caches anchors only for those.
--
-- Rows bulk-loaded with the triggers off must advance `changes` as they recompute `n`.
ALTER TABLE deployment_counts ADD COLUMN changes bigint NOT NULL DEFAULT 0;

CREATE OR REPLACE FUNCTION deployment_counts_add(issuer text, subject text, grp text, st text, delta integer)
RETURNS void AS $$
    INSERT INTO deployment_counts AS c (owner_issuer, owner_subject, user_group, status, shard, n, changes)
    VALUES (issuer, subject, grp, st, (pg_backend_pid() % 8)::smallint, delta, 1)
    ON CONFLICT (owner_issuer, owner_subject, user_group, status, shard)
    DO UPDATE SET n = c.n + delta, changes = c.changes + 1;
$$ LANGUAGE sql;
