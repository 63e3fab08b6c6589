-- Whose fault a failed attempt was (domain::FailureCause): SITE or REQUEST. Site health reads
-- only the site's failures, so a user error or a template the target cannot run does not lower
-- the site's rank or open its circuit breaker for everybody. Older rows are the site's, as before.
ALTER TABLE attempts ADD COLUMN cause text NOT NULL DEFAULT 'SITE';
