-- Issue 20: the optional target provider and region of a create request (the 2025 rewrite's
-- forced target), kept with the deployment so every placement of it (retries on a replica,
-- resumed workflows) applies them. NULL = no target.
ALTER TABLE deployments ADD COLUMN target_provider text, ADD COLUMN target_region text;
