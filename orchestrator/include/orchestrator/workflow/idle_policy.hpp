#pragma once

#include "orchestrator/domain/deployment.hpp"

#include <array>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace orch::workflow {

/// What reclaiming an idle deployment does (docs/lifecycle.md, "Idle GPU reclamation").
enum class IdleAction { kStop, kDelete };
std::string_view IdleActionName(IdleAction action);  ///< "stop", "delete"
std::optional<IdleAction> ParseIdleAction(std::string_view name);

/// The node types whose instances a stop reaches, as POST .../actions allows them: Marathon apps
/// and Kubernetes Deployments (scaled to 0), Chronos jobs (disabled) and VMs. Slurm jobs take none.
inline constexpr std::array<std::string_view, 4> kIdleStoppableTypes = {
    "tosca.nodes.indigo.Container.Application.Docker.Marathon",
    "tosca.nodes.indigo.Container.Application.Docker.Kubernetes",
    "tosca.nodes.indigo.Container.Application.Docker.Chronos",
    "tosca.nodes.indigo.Compute"};

/// When a group's GPU deployments count as idle and what happens then.
struct IdlePolicy {
    bool enabled = false;
    double threshold_percent = 5;         ///< idle while every GPU's utilisation stays below this
    std::chrono::seconds duration{3600};  ///< idle this long: the owner is notified
    std::chrono::seconds notice{3600};    ///< then, still idle this long: the action
    IdleAction action = IdleAction::kStop;
};

/// The operator's default and the per-group overrides (configuration, then the SLA's).
struct IdlePolicies {
    IdlePolicy defaults;
    std::map<std::string, IdlePolicy> by_group;
    /// The group of a deployment created without one (`placement.default_group`, as placement
    /// picks its SLA): its policy, not the operator defaults. Empty: the defaults.
    std::string default_group;
    const IdlePolicy& For(const std::string& group) const;
};

/// Where a watched deployment is (the idle_watch table's `state`).
enum class IdleState {
    kIdle,       ///< idle since `idle_since`, not yet notified
    kNotified,   ///< the owner was told at `notified_at` (event + callback committed)
    kStopping,   ///< reclaimed with action stop at `reclaimed_at`: its nodes are stopped one by one
    kReclaimed,  ///< the action was queued (a delete), or every node was stopped (or given up)
};
std::string_view IdleStateName(IdleState state);  ///< "idle", "notified", "stopping", "reclaimed"
std::optional<IdleState> ParseIdleState(std::string_view name);

struct IdleWatch {
    IdleState state = IdleState::kIdle;
    domain::TimePoint idle_since{};
    domain::TimePoint notified_at{};
    domain::TimePoint reclaimed_at{};  ///< kStopping: the first node's stop was queued then
};

/// What one sweep does for one deployment.
enum class IdleStep {
    kNone,
    kStartWatch,   ///< first idle observation: remember since when
    kReset,        ///< activity: forget the watch (a notified owner is told it is cancelled)
    kNotify,       ///< idle for the policy's duration: tell the owner
    kReclaim,      ///< notified and still idle after the notice: stop (its first node) or delete
    kStopNext,     ///< stopping: queue the next node's stop (none left: reclaimed)
    kStopGivenUp,  ///< stopping longer than the retry cap since the first stop: reclaimed as it is
};

/// The decision, pure: `utilisation` is the highest GPU utilisation seen since the last sweep
/// (nullopt: no series, i.e. nothing known, and nothing is decided on no data). Reclaiming
/// needs the kNotified state, so the owner has always been told before anything is done.
IdleStep DecideIdle(
    const std::optional<IdleWatch>& watch,
    std::optional<double> utilisation,
    const IdlePolicy& policy,
    domain::TimePoint now
);

/// The step of a watch in kStopping, whatever the utilisation (the owner was told, and the
/// nodes left are stopped as the lease's are): the next node, or giving up once the stop has
/// run `stop_timeout` since its first node's (a node whose stop never ends must not be retried
/// forever).
IdleStep DecideStopping(const IdleWatch& watch, domain::TimePoint now, std::chrono::seconds stop_timeout);

/// The GPU-hours a reclamation gives back, as recorded: GPUs × the hours they were idle
/// (from the first idle observation to the action).
double ReclaimedGpuHours(int gpus, domain::TimePoint idle_since, domain::TimePoint now);

}  // namespace orch::workflow
