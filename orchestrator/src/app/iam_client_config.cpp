#include "orchestrator/app/iam_client_config.hpp"

namespace orch::app {

std::set<std::string> IamClientConfigKeys() {
    return {
        "iam_clients.enabled",
        "iam_clients.issuers",
        "iam_clients.initial_access_token",
        "iam_clients.timeout",
        "iam_clients.keeper_period",
        "iam_clients.keeper_grace",
        "iam_clients.keeper_batch",
    };
}

Result<IamClientConfig> ParseIamClientConfig(const ConfigTree& tree) {
    IamClientConfig out;
    ORCH_ASSIGN_OR_RETURN(out.enabled, tree.GetBool("iam_clients.enabled", false));
    ORCH_ASSIGN_OR_RETURN(out.issuers, tree.GetStringList("iam_clients.issuers"));
    ORCH_ASSIGN_OR_RETURN(out.initial_access_token, tree.GetString("iam_clients.initial_access_token", ""));
    ORCH_ASSIGN_OR_RETURN(out.timeout, tree.GetDuration("iam_clients.timeout", out.timeout));
    if (out.timeout < std::chrono::milliseconds(100) || out.timeout > std::chrono::minutes(2)) {
        return Error::InvalidArgument("config key 'iam_clients.timeout': must be between 100ms and 2m");
    }
    ORCH_ASSIGN_OR_RETURN(out.sweep.interval, tree.GetDuration("iam_clients.keeper_period", out.sweep.interval));
    if (out.sweep.interval < std::chrono::milliseconds(100) || out.sweep.interval > std::chrono::hours(24)) {
        return Error::InvalidArgument("config key 'iam_clients.keeper_period': must be between 100ms and 24h");
    }
    ORCH_ASSIGN_OR_RETURN(out.sweep.grace, tree.GetDuration("iam_clients.keeper_grace", out.sweep.grace));
    if (out.sweep.grace < std::chrono::milliseconds(0)) {
        return Error::InvalidArgument("config key 'iam_clients.keeper_grace': must not be negative");
    }
    ORCH_ASSIGN_OR_RETURN(const auto batch, tree.GetInt("iam_clients.keeper_batch", out.sweep.batch, 1, 10'000));
    out.sweep.batch = static_cast<int>(batch);
    return out;
}

}  // namespace orch::app
