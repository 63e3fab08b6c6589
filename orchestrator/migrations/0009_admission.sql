-- 0009: atomic quota accounting (docs/admission.md).
--
-- A place step reserves the deployment's resources against every counter that limits it in the
-- transaction that commits the placement: `INSERT ... ON CONFLICT DO UPDATE ... WHERE held +
-- amount <= limit` on each counter, in CounterKey order; a counter that refuses rolls the whole
-- commit back. Lock order (docs/api.md): deployment row → job rows → quota counters (sorted by
-- key) → status counters (deferred triggers, at commit).
--
-- Limits are not stored: they come from configuration and SLAs at admission time, so changing
-- a quota never needs a migration and never rewrites what was already admitted.
CREATE TABLE quota_counters (
    scope text NOT NULL,       -- group | user | group_service | user_service
    issuer text NOT NULL,
    user_group text NOT NULL,
    subject text NOT NULL,     -- '' unless user scopes
    service_id text NOT NULL,  -- '' unless *_service scopes
    resource text NOT NULL,    -- gpus | cpus | ram_mb | instances
    reserved double precision NOT NULL DEFAULT 0,  -- admitted, not yet CREATE_COMPLETE
    in_use double precision NOT NULL DEFAULT 0,    -- reached CREATE_COMPLETE
    PRIMARY KEY (scope, issuer, user_group, subject, service_id, resource)
);

-- What each admitted deployment holds on which counter, so failure, delete and expiry release
-- exactly that. Rows go with the deployment (purge) but are released before (DELETE_COMPLETE).
CREATE TABLE admission_claims (
    deployment_id uuid NOT NULL REFERENCES deployments (id) ON DELETE CASCADE,
    scope text NOT NULL,
    issuer text NOT NULL,
    user_group text NOT NULL,
    subject text NOT NULL,
    service_id text NOT NULL,
    resource text NOT NULL,
    amount double precision NOT NULL,
    state text NOT NULL DEFAULT 'reserved',  -- reserved | in_use
    PRIMARY KEY (deployment_id, scope, issuer, user_group, subject, service_id, resource)
);
