-- 0021: the admission queue as a table (issue 21).
--
-- Every place step of a waiting request lists the issuer's waiting requests (fair-share order,
-- docs/admission.md). They were found by scanning the jobs' JSON payloads for the `waiting`
-- member and joining every live job to its deployment: with 100,000 pending requests that read,
-- not the ordering, was the place step's cost. This table holds one row per waiting deploy job,
-- keyed by the job, with what the list needs (issuer, the deployment's creation time, the record),
-- in the order the list reads it.
--
-- It is kept in the transactions that queue: the store inserts the row with the job that carries
-- the record (a place step that waits) or with the record added to a job given back (a commit
-- whose reservation does not fit). The foreign key removes it in every transaction that deletes
-- the job: the commit that admits (or fails) the request, DELETE's cancel, a purge.
CREATE TABLE admission_waiting (
    job_id bigint PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
    deployment_id uuid NOT NULL,
    owner_issuer text NOT NULL,
    since timestamptz NOT NULL,
    record jsonb NOT NULL
);
CREATE INDEX admission_waiting_order ON admission_waiting (owner_issuer, since, deployment_id);

-- Requests already waiting when the migration runs.
INSERT INTO admission_waiting (job_id, deployment_id, owner_issuer, since, record)
SELECT j.id, j.deployment_id, d.owner_issuer, d.created_at, j.payload -> 'waiting'
FROM jobs j JOIN deployments d ON d.id = j.deployment_id
WHERE j.payload ? 'waiting';
