-- 0026: the creator's name and e-mail (issue 18).
--
-- The original tags every IM VM with PAAS_DEP_USER (the token's preferred_username) and
-- PAAS_DEP_USER_EMAIL (its email) beside PAAS_DEP_UUID and PAAS_URL. The deploy step runs after
-- the user's request is over, with a refreshed token that need not carry those claims, so they
-- are kept from the creating request. Informational only: scoping reads owner_issuer and
-- owner_subject. NULL for rows written before, and when the token carried neither claim.
ALTER TABLE deployments ADD COLUMN owner_name text, ADD COLUMN owner_email text;
