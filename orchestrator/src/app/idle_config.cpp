#include "orchestrator/app/idle_config.hpp"

#include "orchestrator/app/sla_group_policies.hpp"

namespace orch::app {
namespace {

constexpr std::int64_t kMaxGroups = 10'000;

std::chrono::seconds Seconds(std::chrono::milliseconds ms) {
    return std::chrono::duration_cast<std::chrono::seconds>(ms);
}

// One policy under `prefix` (idle. or idle.groups.<g>.), each key defaulting to `base`'s.
Result<workflow::IdlePolicy> ParsePolicy(const ConfigTree& t, const std::string& prefix, workflow::IdlePolicy base) {
    ORCH_ASSIGN_OR_RETURN(base.enabled, t.GetBool(prefix + "enabled", base.enabled));
    ORCH_ASSIGN_OR_RETURN(base.threshold_percent, t.GetDouble(prefix + "threshold_percent", base.threshold_percent));
    if (base.threshold_percent < 0 || base.threshold_percent > 100) {
        return Error::InvalidArgument("config key '" + prefix + "threshold_percent': must be between 0 and 100");
    }
    ORCH_ASSIGN_OR_RETURN(const auto duration, t.GetDuration(prefix + "duration", base.duration));
    ORCH_ASSIGN_OR_RETURN(const auto notice, t.GetDuration(prefix + "notice", base.notice));
    base.duration = Seconds(duration);
    base.notice = Seconds(notice);
    ORCH_ASSIGN_OR_RETURN(
        const auto action, t.GetString(prefix + "action", std::string(workflow::IdleActionName(base.action)))
    );
    const auto parsed = workflow::ParseIdleAction(action);
    if (!parsed) {
        return Error::InvalidArgument("config key '" + prefix + "action': must be stop or delete");
    }
    base.action = *parsed;
    return base;
}

}  // namespace

Result<IdleConfig> ParseIdleConfig(const ConfigTree& t) {
    IdleConfig c;
    ORCH_ASSIGN_OR_RETURN(c.policies.defaults, ParsePolicy(t, "idle.", c.policies.defaults));
    c.enabled = c.policies.defaults.enabled;
    ORCH_ASSIGN_OR_RETURN(c.policies.default_group, t.GetString("placement.default_group", ""));
    ORCH_ASSIGN_OR_RETURN(c.prometheus_url, t.GetString("idle.prometheus_url", c.prometheus_url));
    ORCH_ASSIGN_OR_RETURN(c.prometheus_timeout, t.GetDuration("idle.prometheus_timeout", c.prometheus_timeout));
    ORCH_ASSIGN_OR_RETURN(c.series.metric, t.GetString("idle.metric", c.series.metric));
    ORCH_ASSIGN_OR_RETURN(c.series.namespace_label, t.GetString("idle.namespace_label", c.series.namespace_label));
    ORCH_ASSIGN_OR_RETURN(c.series.deployment_label, t.GetString("idle.deployment_label", c.series.deployment_label));
    ORCH_ASSIGN_OR_RETURN(const auto interval, t.GetDuration("idle.interval", c.reclaimer.interval));
    c.reclaimer.interval = std::max(std::chrono::seconds(1), Seconds(interval));
    ORCH_ASSIGN_OR_RETURN(
        const auto max_per_sweep, t.GetInt("idle.max_per_sweep", c.reclaimer.max_per_sweep, 1, 1'000'000)
    );
    c.reclaimer.max_per_sweep = static_cast<int>(max_per_sweep);
    ORCH_ASSIGN_OR_RETURN(const auto stop_timeout, t.GetDuration("idle.stop_timeout", c.reclaimer.stop_timeout));
    if (stop_timeout < interval) {
        return Error::InvalidArgument("config key 'idle.stop_timeout': must be at least idle.interval");
    }
    c.reclaimer.stop_timeout = Seconds(stop_timeout);
    const auto groups = t.ChildKeys("idle.groups");
    if (static_cast<std::int64_t>(groups.size()) > kMaxGroups) {
        return Error::InvalidArgument("config key 'idle.groups': at most 10000 groups");
    }
    for (const auto& group : groups) {
        ORCH_ASSIGN_OR_RETURN(auto policy, ParsePolicy(t, "idle.groups." + group + ".", c.policies.defaults));
        c.enabled = c.enabled || policy.enabled;
        c.policies.by_group.emplace(group, policy);
    }
    // A group's `idle:` in the SLA file is the group's own word: over idle.groups.<g>, over idle.*.
    ORCH_RETURN_IF_ERROR(ForEachSlaGroupSection(
        t,
        "idle",
        [&c](const ConfigTree& slas, const std::string& group, const std::string& prefix) -> Status {
            ORCH_ASSIGN_OR_RETURN(auto policy, ParsePolicy(slas, prefix, c.policies.For(group)));
            c.enabled = c.enabled || policy.enabled;
            c.policies.by_group.insert_or_assign(group, policy);
            return Ok();
        }
    ));
    return c;
}

std::set<std::string> IdleConfigKeys() {
    return {
        "idle.enabled",
        "idle.threshold_percent",
        "idle.duration",
        "idle.notice",
        "idle.action",
        "idle.groups.*",
        "idle.prometheus_url",
        "idle.prometheus_timeout",
        "idle.metric",
        "idle.namespace_label",
        "idle.deployment_label",
        "idle.interval",
        "idle.max_per_sweep",
        "idle.stop_timeout",
    };
}

}  // namespace orch::app
