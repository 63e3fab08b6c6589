#pragma once

#include "connectors/connector.hpp"

#include <cstddef>
#include <string>

namespace orch::connectors {

/// An issuer's IAM client for CLUES (the elastic-cluster manager on the front-end VM), which the
/// original writes into ElasticCluster nodes so CLUES can refresh the user's token.
struct CluesClient {
    std::string id;
    std::string secret;
};

/// The TOSCA document sent to IM, rewritten as the original does before sending: every
/// `get_input` replaced by the effective input value (and the `inputs` section dropped), and
/// for each VM node placement chose a flavor/image for, the host capability's `instance_type`
/// and the os capability's `image` (a provider URL such as ost://host/id when the catalogue
/// gives a bare id). GPU requests stay in the host capability (IM maps them to RADL gpu.*).
/// As the original, it also fills what only the orchestrator knows, each only where the node's
/// type declares the property (IM's parser, like ours, refuses an undeclared one): the VM tags
/// `PAAS_URL`, `PAAS_DEP_UUID`, `PAAS_DEP_USER` and `PAAS_DEP_USER_EMAIL` (the owner's
/// preferred_username and email, when known) in every INDIGO Compute's `tags`; `network_name`
/// (and `proxy_host` for a private network) of network nodes from the catalogue's project; and
/// the ElasticCluster's `deployment_id`, `orchestrator_url`, `iam_access_token` and, with
/// `clues`, `iam_clues_client_id` / `iam_clues_client_secret` (CLUES's).
/// Everything else (imports, types, interfaces, artifacts, outputs, policies) goes as written.
/// `orchestrator_url`: this orchestrator's public URL (`server.external_base_url`), or empty.
ConnectorResult<std::string> ImTemplate(
    const DeployRequest& request,
    std::size_t max_bytes,
    const std::string& orchestrator_url = {},
    const CluesClient* clues = nullptr
);

}  // namespace orch::connectors
