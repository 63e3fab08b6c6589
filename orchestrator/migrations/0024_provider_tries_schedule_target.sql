-- Issue 20: the 2025 rewrite's per-provider retries (`perProviderMaxRetries`: tries on one
-- provider before the next; NULL = one try, as the original), and the forced target of a
-- schedule, which the deployments its events create carry. NULL = any.
ALTER TABLE deployments ADD COLUMN per_provider_max_retries integer;
ALTER TABLE schedules ADD COLUMN target_provider text, ADD COLUMN target_region text;
