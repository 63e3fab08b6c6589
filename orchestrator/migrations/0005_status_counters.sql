-- 0005: status counters locked last, in one order, and spread over shards.
--
-- Lock order (docs/api.md): deployment row → job rows → counter rows. The counters used to be
-- kept by an immediate trigger, so a request handler locked deployment → counters → jobs while a
-- worker locked job → deployment: PostgreSQL broke the cycle by aborting one of them (40P01).
-- Deferred until commit, the trigger now runs after every other lock of the transaction.
--
-- Shards: one counter row per (owner, group, status) serialised every concurrent create of that
-- owner on one hot row. Each backend now adds to the shard of its process id, so transactions on
-- different pooled connections rarely meet; a status change moves -1/+1 on the same shard, and
-- the sum over shards stays exact (a shard may go negative, the sum never does).
DROP TRIGGER deployments_count_insert_delete ON deployments;
DROP TRIGGER deployments_count_update ON deployments;
ALTER TABLE deployment_counts ADD COLUMN shard smallint NOT NULL DEFAULT 0;
ALTER TABLE deployment_counts DROP CONSTRAINT deployment_counts_pkey;
ALTER TABLE deployment_counts ADD PRIMARY KEY (owner_issuer, owner_subject, user_group, status, shard);

CREATE FUNCTION deployment_counts_add(issuer text, subject text, grp text, st text, delta integer)
RETURNS void AS $$
    INSERT INTO deployment_counts AS c (owner_issuer, owner_subject, user_group, status, shard, n)
    VALUES (issuer, subject, grp, st, (pg_backend_pid() % 8)::smallint, delta)
    ON CONFLICT (owner_issuer, owner_subject, user_group, status, shard) DO UPDATE SET n = c.n + delta;
$$ LANGUAGE sql;

CREATE OR REPLACE FUNCTION deployment_counts_maintain() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM deployment_counts_add(NEW.owner_issuer, NEW.owner_subject, NEW.user_group, NEW.status, 1);
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM deployment_counts_add(OLD.owner_issuer, OLD.owner_subject, OLD.user_group, OLD.status, -1);
    -- A change touches two rows: always the smaller key first, so X→Y and Y→X cannot deadlock.
    ELSIF (OLD.owner_issuer, OLD.owner_subject, OLD.user_group, OLD.status)
          < (NEW.owner_issuer, NEW.owner_subject, NEW.user_group, NEW.status) THEN
        PERFORM deployment_counts_add(OLD.owner_issuer, OLD.owner_subject, OLD.user_group, OLD.status, -1);
        PERFORM deployment_counts_add(NEW.owner_issuer, NEW.owner_subject, NEW.user_group, NEW.status, 1);
    ELSE
        PERFORM deployment_counts_add(NEW.owner_issuer, NEW.owner_subject, NEW.user_group, NEW.status, 1);
        PERFORM deployment_counts_add(OLD.owner_issuer, OLD.owner_subject, OLD.user_group, OLD.status, -1);
    END IF;
    RETURN NULL;
END
$$ LANGUAGE plpgsql;

CREATE CONSTRAINT TRIGGER deployments_count_insert_delete AFTER INSERT OR DELETE ON deployments
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION deployment_counts_maintain();
CREATE CONSTRAINT TRIGGER deployments_count_update AFTER UPDATE OF status, owner_issuer, owner_subject, user_group
    ON deployments DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.owner_issuer IS DISTINCT FROM NEW.owner_issuer
                       OR OLD.owner_subject IS DISTINCT FROM NEW.owner_subject OR OLD.user_group IS DISTINCT FROM NEW.user_group)
    EXECUTE FUNCTION deployment_counts_maintain();
