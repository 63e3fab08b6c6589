-- Issue 22, self-healing: whether the create/update request opted the deployment in
-- (`selfHealing`); NULL = not said, the group's SLA policy or the operator default decides.
ALTER TABLE deployments ADD COLUMN self_healing boolean;

-- Running deployments of an older version get their health watch (the 'health' side job the
-- poll step queues when a deployment becomes CREATE_COMPLETE), spread over the first minute.
INSERT INTO jobs (deployment_id, kind, workflow, payload, run_at)
SELECT id, 'health', false, '{}'::jsonb, now() + random() * interval '60 seconds'
FROM deployments
WHERE status IN ('CREATE_COMPLETE', 'UPDATE_COMPLETE', 'UPDATE_FAILED', 'UPDATE_IN_PROGRESS')
  AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.deployment_id = deployments.id AND j.kind = 'health');
