-- 0011: deployment leases (issue 22, docs/lifecycle.md "Leases").
--
-- expires_at: when the deployment's lease ends (NULL = no lease). lease_warnings: how many of the
-- configured lead times have been warned about for this expires_at (a renewal resets it).
-- lease_action: what the end does (delete | stop), the group's policy when the lease was set.
-- lease_state: ACTIVE until the expiry action was begun; STOPPING while a stop expiry stops the
-- deployment's nodes one by one; EXPIRED once done. Any replica's sweep reads the due rows (the
-- partial index below), and each of its writes locks the row and is guarded by the expires_at and
-- warning count it read, so a renewal that commits first wins and two replicas never warn or
-- expire twice.
ALTER TABLE deployments
    ADD COLUMN expires_at timestamptz,
    ADD COLUMN lease_warnings integer NOT NULL DEFAULT 0,
    ADD COLUMN lease_action text NOT NULL DEFAULT 'delete',
    ADD COLUMN lease_state text NOT NULL DEFAULT 'ACTIVE';
CREATE INDEX deployments_lease_due ON deployments (expires_at)
    WHERE expires_at IS NOT NULL AND lease_state <> 'EXPIRED';
