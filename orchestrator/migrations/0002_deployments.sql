-- 0002: deployments, resources, attempts, placement records, jobs, schedules.
CREATE TABLE deployments (
    id uuid PRIMARY KEY,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    status text NOT NULL,
    status_reason text,
    task text NOT NULL DEFAULT 'NONE',
    physical_id text,
    callback text,
    user_group text NOT NULL DEFAULT '',     -- '' = none
    owner_issuer text NOT NULL DEFAULT '',   -- '' = no owner
    owner_subject text NOT NULL DEFAULT '',
    cloud_provider_name text,
    cloud_provider_endpoint jsonb,
    outputs jsonb NOT NULL DEFAULT '{}',
    template text NOT NULL,
    parameters jsonb NOT NULL DEFAULT '{}',
    timeout_mins integer,
    provider_timeout_mins integer,
    max_providers_retry integer,
    keep_last_attempt boolean NOT NULL DEFAULT false,
    kind text NOT NULL DEFAULT 'VIRTUAL_MACHINES',
    deadline timestamptz,
    -- requested resources, summed over instances: quota usage without re-parsing templates
    req_cpus double precision NOT NULL DEFAULT 0,
    req_mem_mb bigint NOT NULL DEFAULT 0,
    req_gpus integer NOT NULL DEFAULT 0,
    req_instances integer NOT NULL DEFAULT 0,
    -- workflow bookkeeping: the ranked candidates and where the workflow stands
    placement jsonb,
    candidate_index integer NOT NULL DEFAULT 0,
    handle jsonb,
    log text NOT NULL DEFAULT ''
);
-- Every list query: newest first, optionally per owner or per group, optionally excluding statuses.
CREATE INDEX deployments_created ON deployments (created_at DESC, id DESC);
CREATE INDEX deployments_owner_created ON deployments (owner_issuer, owner_subject, created_at DESC, id DESC);
CREATE INDEX deployments_issuer_created ON deployments (owner_issuer, created_at DESC, id DESC);
CREATE INDEX deployments_group_created ON deployments (owner_issuer, user_group, created_at DESC, id DESC);
CREATE INDEX deployments_active_group ON deployments (user_group) WHERE status NOT IN ('DELETE_COMPLETE', 'CREATE_FAILED');

-- Totals for paged lists without counting rows: one counter per (owner, group, status), kept by
-- a trigger. A page of 100,000 deployments then costs the same as a page of 100.
CREATE TABLE deployment_counts (
    owner_issuer text NOT NULL,
    owner_subject text NOT NULL,
    user_group text NOT NULL,
    status text NOT NULL,
    n bigint NOT NULL,
    PRIMARY KEY (owner_issuer, owner_subject, user_group, status)
);

CREATE FUNCTION deployment_counts_maintain() RETURNS trigger AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE deployment_counts SET n = n - 1
         WHERE owner_issuer = OLD.owner_issuer AND owner_subject = OLD.owner_subject
           AND user_group = OLD.user_group AND status = OLD.status;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO deployment_counts AS c VALUES (NEW.owner_issuer, NEW.owner_subject, NEW.user_group, NEW.status, 1)
        ON CONFLICT (owner_issuer, owner_subject, user_group, status) DO UPDATE SET n = c.n + 1;
    END IF;
    RETURN NULL;
END
$$ LANGUAGE plpgsql;

CREATE TRIGGER deployments_count_insert_delete AFTER INSERT OR DELETE ON deployments
    FOR EACH ROW EXECUTE FUNCTION deployment_counts_maintain();
CREATE TRIGGER deployments_count_update AFTER UPDATE OF status, owner_issuer, owner_subject, user_group ON deployments
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.owner_issuer IS DISTINCT FROM NEW.owner_issuer
                       OR OLD.owner_subject IS DISTINCT FROM NEW.owner_subject OR OLD.user_group IS DISTINCT FROM NEW.user_group)
    EXECUTE FUNCTION deployment_counts_maintain();

CREATE TABLE resources (
    id uuid PRIMARY KEY,
    deployment_id uuid NOT NULL REFERENCES deployments (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    physical_id text,
    state text NOT NULL,
    node_type text NOT NULL,
    node_name text NOT NULL,
    type_chain text[] NOT NULL DEFAULT '{}',
    instance_index integer NOT NULL DEFAULT 0,
    metadata jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX resources_deployment ON resources (deployment_id, created_at DESC, id DESC);
CREATE INDEX resources_type_chain ON resources USING gin (type_chain);

-- One row per try on a site; every failure keeps its site and reason.
CREATE TABLE attempts (
    deployment_id uuid NOT NULL REFERENCES deployments (id) ON DELETE CASCADE,
    seq integer NOT NULL,
    provider_id text NOT NULL,
    provider_name text NOT NULL,
    service_id text NOT NULL,
    target jsonb NOT NULL,
    started_at timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    outcome text NOT NULL DEFAULT 'RUNNING',  -- RUNNING, SUCCEEDED, FAILED
    reason text,
    handle jsonb,                              -- what the connector created (for cleanup)
    cleaned boolean NOT NULL DEFAULT false,    -- provider side confirmed gone
    PRIMARY KEY (deployment_id, seq)
);
CREATE INDEX attempts_service_recent ON attempts (service_id, finished_at DESC) WHERE finished_at IS NOT NULL;

-- Durable work: claimed with FOR UPDATE SKIP LOCKED under a lease. At most one workflow job per
-- deployment (the partial unique index); side jobs (callbacks, cleanups) may run beside it.
CREATE TABLE jobs (
    id bigserial PRIMARY KEY,
    deployment_id uuid NOT NULL,
    kind text NOT NULL,
    workflow boolean NOT NULL DEFAULT true,
    payload jsonb NOT NULL DEFAULT '{}',
    run_at timestamptz NOT NULL DEFAULT now(),
    attempts integer NOT NULL DEFAULT 0,
    lease_owner text,
    lease_until timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    last_error text
);
CREATE UNIQUE INDEX jobs_one_workflow ON jobs (deployment_id) WHERE workflow;
CREATE INDEX jobs_due ON jobs (run_at);

CREATE TABLE schedules (
    id uuid PRIMARY KEY,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    status text NOT NULL DEFAULT 'RUNNING',
    file_expression text NOT NULL,
    replication_expression text NOT NULL,
    number_of_replicas integer NOT NULL,
    callback text,
    owner_issuer text NOT NULL DEFAULT '',
    owner_subject text NOT NULL DEFAULT '',
    template text NOT NULL,
    parameters jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX schedules_owner_created ON schedules (owner_issuer, owner_subject, created_at DESC, id DESC);
CREATE INDEX schedules_issuer_created ON schedules (owner_issuer, created_at DESC, id DESC);

CREATE TABLE schedule_events (
    id uuid PRIMARY KEY,
    schedule_id uuid NOT NULL REFERENCES schedules (id) ON DELETE CASCADE,
    deployment_id uuid REFERENCES deployments (id) ON DELETE SET NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    scope text NOT NULL,
    name text NOT NULL,
    replication_status text
);
CREATE INDEX schedule_events_schedule ON schedule_events (schedule_id, created_at DESC, id DESC);
