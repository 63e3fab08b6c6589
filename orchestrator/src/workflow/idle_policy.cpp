#include "orchestrator/workflow/idle_policy.hpp"

#include <algorithm>

namespace orch::workflow {

std::string_view IdleActionName(IdleAction action) {
    return action == IdleAction::kDelete ? "delete" : "stop";
}

std::optional<IdleAction> ParseIdleAction(std::string_view name) {
    if (name == "stop") {
        return IdleAction::kStop;
    }
    if (name == "delete") {
        return IdleAction::kDelete;
    }
    return std::nullopt;
}

const IdlePolicy& IdlePolicies::For(const std::string& group) const {
    const auto it = by_group.find(group.empty() ? default_group : group);
    return it == by_group.end() ? defaults : it->second;
}

std::string_view IdleStateName(IdleState state) {
    switch (state) {
        case IdleState::kIdle:
            return "idle";
        case IdleState::kNotified:
            return "notified";
        case IdleState::kStopping:
            return "stopping";
        case IdleState::kReclaimed:
            return "reclaimed";
    }
    return "idle";
}

std::optional<IdleState> ParseIdleState(std::string_view name) {
    for (const auto state : {IdleState::kIdle, IdleState::kNotified, IdleState::kStopping, IdleState::kReclaimed}) {
        if (IdleStateName(state) == name) {
            return state;
        }
    }
    return std::nullopt;
}

IdleStep DecideIdle(
    const std::optional<IdleWatch>& watch,
    std::optional<double> utilisation,
    const IdlePolicy& policy,
    domain::TimePoint now
) {
    if (!utilisation || (watch && watch->state == IdleState::kStopping)) {
        return IdleStep::kNone;  // a stop under way is DecideStopping's
    }
    if (watch && watch->state == IdleState::kReclaimed) {
        // Reclaimed once: watched afresh only after it was busy again (the owner started and
        // used it), so series an exporter keeps publishing for a stopped workload never lead to
        // a second notice for the same idleness.
        return *utilisation >= policy.threshold_percent ? IdleStep::kReset : IdleStep::kNone;
    }
    if (*utilisation >= policy.threshold_percent) {
        return watch ? IdleStep::kReset : IdleStep::kNone;
    }
    if (!policy.enabled) {
        return IdleStep::kNone;
    }
    if (!watch) {
        return IdleStep::kStartWatch;
    }
    if (watch->state == IdleState::kIdle) {
        return now - watch->idle_since >= policy.duration ? IdleStep::kNotify : IdleStep::kNone;
    }
    return now - watch->notified_at >= policy.notice ? IdleStep::kReclaim : IdleStep::kNone;
}

IdleStep DecideStopping(const IdleWatch& watch, domain::TimePoint now, std::chrono::seconds stop_timeout) {
    if (watch.state != IdleState::kStopping) {
        return IdleStep::kNone;
    }
    return now - watch.reclaimed_at > stop_timeout ? IdleStep::kStopGivenUp : IdleStep::kStopNext;
}

double ReclaimedGpuHours(int gpus, domain::TimePoint idle_since, domain::TimePoint now) {
    const auto idle = std::max(domain::TimePoint::duration::zero(), now - idle_since);
    return std::max(0, gpus) * std::chrono::duration<double, std::ratio<3600>>(idle).count();
}

}  // namespace orch::workflow
