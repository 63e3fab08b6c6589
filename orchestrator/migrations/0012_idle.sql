-- 0012: idle GPU reclamation (docs/lifecycle.md, "Idle GPU reclamation").
--
-- The sweep (workflow/idle_reclaimer) keeps nothing in memory: where each running GPU deployment
-- is in idle → notified → reclaimed is this row, changed only by conditional updates under the
-- deployment row lock, so any replica may sweep and a kill -9 loses nothing.
CREATE TABLE idle_watch (
    deployment_id uuid PRIMARY KEY REFERENCES deployments (id) ON DELETE CASCADE,
    state text NOT NULL,             -- idle | notified | reclaimed
    idle_since timestamptz NOT NULL,  -- first idle observation
    notified_at timestamptz,          -- the owner was told (event + callback committed with it)
    reclaimed_at timestamptz,
    action text                       -- stop | delete (what the reclamation queued)
);

-- Reclaimed GPU-hours per group (GET /quotas, /metrics): GPUs × hours idle before the action,
-- added in the transaction that queues the action.
CREATE TABLE idle_reclaimed (
    issuer text NOT NULL,
    user_group text NOT NULL,
    gpu_hours double precision NOT NULL DEFAULT 0,
    reclamations bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (issuer, user_group)
);

-- The sweep's scan: running deployments holding GPUs, paged by id.
CREATE INDEX deployments_running_gpus ON deployments (id)
    WHERE req_gpus > 0 AND status IN ('CREATE_COMPLETE', 'UPDATE_COMPLETE');
