-- 0004: schedules (contract §3.17). The tables came with 0002; this adds what the endpoints and
-- the file-notification matcher need.
-- Once per file: a second notification of the same scope:name for a schedule creates nothing.
ALTER TABLE schedule_events ADD CONSTRAINT schedule_events_once_per_file UNIQUE (schedule_id, scope, name);
-- GET /schedules for an admin with auth disabled (no owner filter): newest first.
CREATE INDEX schedules_created ON schedules (created_at DESC, id DESC);
-- The matcher walks RUNNING schedules in id order (keyset pages).
CREATE INDEX schedules_running ON schedules (id) WHERE status = 'RUNNING';
-- An event's deployment is looked up when the deployment is deleted (ON DELETE SET NULL).
CREATE INDEX schedule_events_deployment ON schedule_events (deployment_id);
