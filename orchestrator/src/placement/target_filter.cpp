#include "evaluation.hpp"

namespace orch::placement {

void CheckTarget(const DeploymentLimits& limits, Evaluation& eval) {
    if (!limits.target_provider.empty() && eval.provider_id() != limits.target_provider &&
        eval.site->provider_name != limits.target_provider) {
        eval.Reject("not the target provider '" + limits.target_provider + "' the request names");
    }
    if (limits.target_region.empty()) {
        return;
    }
    const cmdb::Service* service = eval.service();
    const std::string region = service != nullptr ? service->region : std::string();
    if (region != limits.target_region) {
        eval.Reject(
            (region.empty() ? std::string("in no region") : "in region '" + region + "'") +
            ", not the target region '" + limits.target_region + "' the request names"
        );
    }
}

std::vector<std::string> LimitNotes(const DeploymentLimits& limits) {
    std::vector<std::string> notes;
    if (!limits.target_provider.empty() || !limits.target_region.empty()) {
        notes.push_back(
            "the request targets " +
            (limits.target_provider.empty() ? std::string("any provider") : "provider '" + limits.target_provider + "'"
            ) +
            (limits.target_region.empty() ? std::string() : " in region '" + limits.target_region + "'")
        );
    }
    const auto minutes = [](const std::optional<int>& value) {
        return value ? std::to_string(*value) + " min" : std::string("none");
    };
    if (limits.max_providers_retry || limits.provider_timeout_mins || limits.timeout_mins) {
        notes.push_back(
            "limits of the request: providers tried " +
            (limits.max_providers_retry ? "at most " + std::to_string(*limits.max_providers_retry) : std::string("all")
            ) +
            ", per-provider timeout " + minutes(limits.provider_timeout_mins) + ", overall timeout " +
            minutes(limits.timeout_mins)
        );
    }
    if (limits.per_provider_max_retries) {
        notes.push_back(
            "tries on each provider: at most " + std::to_string(*limits.per_provider_max_retries) +
            " (the per-provider timeout covers them all)"
        );
    }
    return notes;
}

}  // namespace orch::placement
