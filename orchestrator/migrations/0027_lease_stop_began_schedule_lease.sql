-- Issue 22 follow-ups (docs/lifecycle.md "Leases").
--
-- lease_stop_began: the first attempt at a lease's stop (a busy one too); the stop's retry cap
-- (leases.stop_timeout) counts from it, not from the lease's end, so an orchestrator down longer
-- than the cap still tries the stop before giving up. A value before expires_at belongs to a
-- former lease (renewed since) and is read as none.
ALTER TABLE deployments ADD COLUMN lease_stop_began timestamptz;

-- The lease (minutes from their creation) of the deployments a schedule's events create;
-- NULL: the default lease, as before.
ALTER TABLE schedules ADD COLUMN deployment_expires_after_mins integer;
