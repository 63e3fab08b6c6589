-- 0016: quota counters per GPU class (docs/admission.md, "GPU classes").
--
-- A counter of GPUs may count only one class of them (an SLA target `num_gpus` with a
-- `gpu_class`: "V100" with its aliases, or a GPU memory class). '' is every GPU, and every
-- counter of another resource: the rows written before this migration keep their meaning.
ALTER TABLE quota_counters ADD COLUMN gpu_class text NOT NULL DEFAULT '';
ALTER TABLE quota_counters DROP CONSTRAINT quota_counters_pkey;
ALTER TABLE quota_counters ADD PRIMARY KEY (scope, issuer, user_group, subject, service_id, resource, gpu_class);

ALTER TABLE admission_claims ADD COLUMN gpu_class text NOT NULL DEFAULT '';
ALTER TABLE admission_claims DROP CONSTRAINT admission_claims_pkey;
ALTER TABLE admission_claims
    ADD PRIMARY KEY (deployment_id, scope, issuer, user_group, subject, service_id, resource, gpu_class);


-- A create may ask to wait at most this long for admission (`maxWaitMins`; NULL: only the
-- operator's workflow.admission_max_wait, which also bounds this).
ALTER TABLE deployments ADD COLUMN max_wait_mins integer;
