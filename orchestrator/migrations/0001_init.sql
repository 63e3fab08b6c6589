-- 0001: the store of the foundation. Later migrations add the deployment model.
CREATE TABLE IF NOT EXISTS instance_heartbeats (
    instance_id text PRIMARY KEY,
    started_at timestamptz NOT NULL DEFAULT now(),
    seen_at timestamptz NOT NULL DEFAULT now()
);
