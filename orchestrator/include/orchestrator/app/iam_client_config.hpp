#pragma once

#include "common/config.hpp"
#include "orchestrator/workflow/iam_client_sweep.hpp"

#include <chrono>
#include <set>
#include <string>
#include <vector>

namespace orch::app {

/// `iam_clients.*` (docs/configuration.md): per-deployment OAuth clients for
/// tosca.nodes.indigo.iam.client nodes. Errors name the key.
struct IamClientConfig {
    bool enabled = false;
    /// Issuers clients may be registered at (each must be a trusted auth.issuers issuer);
    /// empty: every trusted issuer.
    std::vector<std::string> issuers;
    /// Sent as the registration's bearer instead of the owner's access token, for issuers that
    /// take registrations only with an operator's initial access token (RFC 7591 §3). Secret.
    std::string initial_access_token;
    std::chrono::milliseconds timeout{10'000};  ///< each registration or deletion call
    workflow::IamClientSweepOptions sweep;
};
Result<IamClientConfig> ParseIamClientConfig(const ConfigTree& tree);
std::set<std::string> IamClientConfigKeys();

}  // namespace orch::app
