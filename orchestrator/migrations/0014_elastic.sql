-- Issue 22, elastic clusters: what the autoscaler remembers of each elastic deployment between
-- sweeps, so hysteresis and cool-down survive restarts and any replica may take the next sweep.
-- checked_at is the last sweep's turn (a sweep takes the row only when it is older than the
-- interval, so two replicas do not decide for one cluster at once). Times come from the
-- orchestrator's Clock, not now(), like every time the workflow decides by.
CREATE TABLE elastic_state (
    deployment_id uuid PRIMARY KEY REFERENCES deployments (id) ON DELETE CASCADE,
    checked_at timestamptz NOT NULL,
    high_since timestamptz,
    low_since timestamptz,
    last_scale_at timestamptz
);
