-- 0003: refresh tokens kept for acting on users' behalf (sealed by the auth module: AES-256-GCM).
CREATE TABLE oidc_refresh_tokens (
    issuer text NOT NULL,
    subject text NOT NULL,
    ciphertext text NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (issuer, subject)
);
-- Quota usage sums per group and per user over active deployments.
CREATE INDEX deployments_active_owner ON deployments (user_group, owner_issuer, owner_subject)
    WHERE status NOT IN ('DELETE_COMPLETE', 'CREATE_FAILED');
