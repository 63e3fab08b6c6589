-- 0015: the fair-share history (docs/admission.md, "Fair share").
--
-- When a deployment gives back what it held (failed, deleted, expired), what it held on its
-- group counters times how long it held it is added to the day's row of its issuer and group:
-- resource-hours (GPU-hours, CPU-hours, MB-hours). The reader decays each day's amount by its
-- age with the half-life it is configured with (workflow.admission_half_life), so the half-life
-- can change without rewriting history. Rows are per issuer, group, resource and day: small.
ALTER TABLE admission_claims ADD COLUMN since timestamptz NOT NULL DEFAULT now();

CREATE TABLE fair_share_usage (
    issuer text NOT NULL,
    user_group text NOT NULL,
    resource text NOT NULL,  -- gpus | cpus | ram_mb | instances
    day date NOT NULL,
    amount double precision NOT NULL,  -- resource-hours
    PRIMARY KEY (issuer, user_group, resource, day)
);
