-- 0006: the durable event log behind GET /deployments/{id}/events and GET /events (SSE).
--
-- Ids increase in commit order: writers take the events lock (advisory, transaction-scoped) just
-- before inserting, as the last statement before COMMIT, so a reader that saw id n can never
-- later see a smaller one appear; resuming "after Last-Event-ID" therefore misses nothing, on any
-- replica. The owner columns are copied from the deployment at insert time so that GET /events
-- is scoped by the same OwnerFilter as the list, and survive the deployment's purge (events have
-- their own retention, events.retention).
CREATE TABLE events (
    id bigserial PRIMARY KEY,
    deployment_id uuid NOT NULL,
    owner_issuer text NOT NULL DEFAULT '',
    owner_subject text NOT NULL DEFAULT '',
    user_group text NOT NULL DEFAULT '',
    type text NOT NULL,
    at timestamptz NOT NULL,
    data jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX events_deployment ON events (deployment_id, id);
CREATE INDEX events_at ON events (at);
