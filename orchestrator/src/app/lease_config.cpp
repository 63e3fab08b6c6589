#include "orchestrator/app/lease_config.hpp"

#include "common/log.hpp"

namespace orch::app {
namespace {

// An optional duration key: absent or "" = none.
Status ReadOptionalDuration(
    const ConfigTree& tree, const std::string& key, std::optional<std::chrono::milliseconds>& out
) {
    ORCH_ASSIGN_OR_RETURN(const std::string text, tree.GetString(key, ""));
    if (text.empty() || text == "none") {
        return Ok();
    }
    auto parsed = ParseDuration(text);
    if (!parsed || *parsed <= std::chrono::milliseconds(0)) {
        return Error::InvalidArgument("config key '" + key + "': must be a positive duration such as 72h, or none");
    }
    out = *parsed;
    return Ok();
}

// An SLA's duration text over the default; a bad one is the SLA's mistake: logged, default kept.
void Overlay(const std::optional<std::string>& text, std::optional<std::chrono::milliseconds>& slot, const char* what) {
    if (!text) {
        return;
    }
    if (*text == "none") {
        slot.reset();
        return;
    }
    if (auto parsed = ParseDuration(*text); parsed && *parsed > std::chrono::milliseconds(0)) {
        slot = *parsed;
        return;
    }
    ORCH_LOG_WARN("leases: ignoring an SLA's lease term", {{"term", std::string(what)}, {"value", *text}});
}

}  // namespace

std::set<std::string> LeaseConfigKeys() {
    return {
        "leases.default_duration",
        "leases.max_duration",
        "leases.action",
        "leases.warnings",
        "leases.sweep_interval",
        "leases.stop_timeout",
    };
}

Result<LeaseConfig> ParseLeaseConfig(const ConfigTree& tree) {
    LeaseConfig out;
    ORCH_RETURN_IF_ERROR(ReadOptionalDuration(tree, "leases.default_duration", out.defaults.default_duration));
    ORCH_RETURN_IF_ERROR(ReadOptionalDuration(tree, "leases.max_duration", out.defaults.maximum));
    ORCH_ASSIGN_OR_RETURN(const std::string action, tree.GetString("leases.action", "delete"));
    const auto parsed_action = domain::ParseLeaseAction(action);
    if (!parsed_action) {
        return Error::InvalidArgument("config key 'leases.action': must be delete or stop");
    }
    out.defaults.action = *parsed_action;
    ORCH_ASSIGN_OR_RETURN(const std::string warnings, tree.GetString("leases.warnings", "24h,1h"));
    out.sweep.warnings.clear();
    std::size_t start = 0;
    while (start <= warnings.size() && !warnings.empty()) {
        const auto comma = std::min(warnings.find(',', start), warnings.size());
        std::string item = warnings.substr(start, comma - start);
        item.erase(0, item.find_first_not_of(' '));
        item.erase(item.find_last_not_of(' ') + 1);
        if (!item.empty() && item != "none") {
            auto lead = ParseDuration(item);
            if (!lead || *lead <= std::chrono::milliseconds(0)) {
                return Error::InvalidArgument(
                    "config key 'leases.warnings': '" + item + "' is not a positive duration"
                );
            }
            out.sweep.warnings.push_back(*lead);
        }
        start = comma + 1;
    }
    ORCH_ASSIGN_OR_RETURN(out.default_group, tree.GetString("placement.default_group", ""));
    ORCH_ASSIGN_OR_RETURN(out.sweep.interval, tree.GetDuration("leases.sweep_interval", out.sweep.interval));
    if (out.sweep.interval < std::chrono::milliseconds(100) || out.sweep.interval > std::chrono::seconds(45)) {
        // At most 45 s: an expiry is acted on within a minute of its time (docs/lifecycle.md).
        return Error::InvalidArgument("config key 'leases.sweep_interval': must be between 100ms and 45s");
    }
    ORCH_ASSIGN_OR_RETURN(out.sweep.stop_timeout, tree.GetDuration("leases.stop_timeout", out.sweep.stop_timeout));
    if (out.sweep.stop_timeout < out.sweep.interval) {
        return Error::InvalidArgument("config key 'leases.stop_timeout': must be at least leases.sweep_interval");
    }
    return out;
}

Result<workflow::LeasePolicy> SlaLeasePolicies::ForGroup(
    const std::string& requested_group, const std::string& issuer, const std::string& access_token
) {
    workflow::LeasePolicy policy = defaults_;
    const std::string& group = requested_group.empty() ? default_group_ : requested_group;
    if (slas_ == nullptr || group.empty()) {
        return policy;
    }
    auto view = slas_->ForCaller(group, issuer, access_token);
    if (!view) {
        if (view.error().code != ErrorCode::kNotFound) {
            ORCH_LOG_WARN(
                "leases: cannot read the group's SLA; using the default lease terms",
                {{"user_group", group}, {"error", view.error().message}}
            );
        }
        return policy;
    }
    const cmdb::LeaseTerms& terms = view->slas->lease;
    Overlay(terms.default_duration, policy.default_duration, "default");
    Overlay(terms.maximum_duration, policy.maximum, "maximum");
    if (terms.action) {
        if (const auto action = domain::ParseLeaseAction(*terms.action)) {
            policy.action = *action;
        } else {
            ORCH_LOG_WARN("leases: ignoring an SLA's lease action", {{"user_group", group}, {"value", *terms.action}});
        }
    }
    return policy;
}

}  // namespace orch::app
