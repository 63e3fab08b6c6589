-- 0008: the outbox of deployment callbacks (the `callback` URL of POST/PUT /deployments).
--
-- A step that changes a deployment's state inserts its delivery row in the same transaction as
-- the change, so a committed change always has its notification queued, whatever happens to the
-- process afterwards. Any replica claims due rows with FOR UPDATE SKIP LOCKED under a lease (a
-- process killed mid-delivery leaves a row whose lease expires, and another takes it: at least
-- once), and a failed POST is retried later with capped backoff until the delivery is older than
-- workflow.callback_max_age. The URL is copied at insert time: a later PUT that changes it does
-- not redirect notifications about earlier changes. No foreign key: a delivery about a deleted
-- deployment outlives the purge of its audit row.
CREATE TABLE callback_deliveries (
    id bigserial PRIMARY KEY,
    deployment_id uuid NOT NULL,
    url text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    next_at timestamptz NOT NULL DEFAULT now(),
    attempts int NOT NULL DEFAULT 0,
    lease_owner text,
    lease_until timestamptz,
    last_error text
);
CREATE INDEX callback_deliveries_due ON callback_deliveries (next_at);
