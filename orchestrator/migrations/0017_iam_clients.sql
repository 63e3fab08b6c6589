-- Issue 20, per-deployment IAM clients: every OAuth client the orchestrator registers at an
-- issuer (RFC 7591) for a tosca.nodes.indigo.iam.client node. The row is written BEFORE the
-- registration request (state 'registering'), completed with the client id and the sealed
-- registration access token after it, and removed only when the issuer confirmed the deletion
-- (RFC 7592), so no client is ever registered without a durable trace. There is deliberately no
-- foreign key to deployments: a purged deployment must not take the record of a live client
-- with it. created_at comes from the orchestrator's Clock, like every time the workflow uses.
CREATE TABLE iam_clients (
    id uuid PRIMARY KEY,
    deployment_id uuid NOT NULL,
    node_name text NOT NULL,
    issuer text NOT NULL,
    state text NOT NULL CHECK (state IN ('registering', 'registered', 'unconfirmed')),
    client_id text,
    registration_client_uri text,
    registration_access_token text,  -- sealed with the auth token key (TokenCipher), never clear
    created_at timestamptz NOT NULL
);
CREATE INDEX iam_clients_deployment ON iam_clients (deployment_id);
CREATE INDEX iam_clients_created ON iam_clients (created_at);
