#pragma once

// Helpers shared by the step implementations (private to the workflow area).
#include "common/log.hpp"
#include "orchestrator/workflow/candidate_codec.hpp"
#include "orchestrator/workflow/deployment_steps.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <variant>

namespace orch::workflow::steps {

inline constexpr std::string_view kTimeoutReason = "Timeout: Maximum execution time exceeded.";

/// A stored candidate's member holding the claims its service's SLA makes (ClaimsToJson).
inline constexpr const char* kServiceClaimsMember = "admission_claims";
/// A deploy job's payload member: the candidate whose SLA claims it must reserve before Create
/// (set by NextSite when the workflow moves on).
inline constexpr const char* kReserveSeqMember = "reserve_seq";

/// A cleanup job's payload member: the deploy job's payload to run once the cleanup is done. A
/// failed try whose next try is on the same service is cleaned on the main line first (NextSite):
/// its objects carry the names the next try's will, so a cleanup running beside that try would
/// delete the next try's objects.
inline constexpr const char* kThenDeployMember = "then_deploy";

/// The catalogue service candidate `index` runs on ("" when it names none).
std::string ServiceOfCandidate(const WorkflowState& st, int index);

/// What placement is asked for the deployment: its limits, group and owner (with the owner's
/// access token when there is one: catalogues read with the user's token need it; without one
/// they answer what an anonymous caller may see, which placement reports).
placement::PlacementRequest PlacementRequestFor(
    StepServices& s, const WorkflowState& st, const tosca::DeploymentSpec& spec
);

/// Exponential backoff for the n-th consecutive transient failure, capped.
inline std::chrono::milliseconds Backoff(int n, std::chrono::milliseconds cap = std::chrono::milliseconds(60'000)) {
    const std::chrono::milliseconds ms(500LL << std::clamp(n, 0, 16));
    return std::min(ms, cap);
}

/// Poll delays: quick at first, doubling up to `max` (1 s, 2 s, 4 s ... 30 s).
inline std::chrono::milliseconds PollDelay(const StepOptions& o, int polls) {
    const std::chrono::milliseconds grown(o.first_poll.count() << std::clamp(polls, 0, 16));
    return std::min(o.max_poll, grown);
}

/// A transition that only queues the next step.
inline Transition Then(NextJob next) {
    Transition t;
    t.next = std::move(next);
    return t;
}

inline ResourceChange StateOf(std::string resource_id, std::optional<domain::NodeState> state) {
    ResourceChange c;
    c.id = std::move(resource_id);
    c.state = state;
    return c;
}

/// A connector call's value, or null when it failed (then see StepForFailure).
template <typename T>
const T* Value(const connectors::ConnectorResult<T>& r) {
    return std::get_if<T>(&r);
}

/// The one way a step turns a connector failure into its result: nullopt when the call
/// succeeded; a retry of the job with backoff for a kRetryHere failure while the transient-retry
/// budget lasts; otherwise Commit(give_up(failure)), `give_up` being the step's own verdict.
template <typename T, typename GiveUp>
std::optional<StepResult> StepForFailure(
    const StepServices& s, const Job& job, const connectors::ConnectorResult<T>& r, GiveUp&& give_up
) {
    const auto* failure = std::get_if<connectors::Failure>(&r);
    if (failure == nullptr) {
        return std::nullopt;
    }
    if (failure->kind == connectors::FailureKind::kRetryHere && job.attempts <= s.options.max_transient_retries) {
        return StepResult::Retry(Backoff(job.attempts), failure->message);
    }
    return StepResult::Commit(give_up(*failure));
}

/// The handle of an attempt: what Create returned, else one rebuilt from the stored target so a
/// connector can find objects by the names it derives from the deployment id.
Result<connectors::Handle> HandleOf(const Attempt& attempt, const std::string& deployment_id);

/// Fills in credentials for the call.
Result<connectors::Handle> WithCredentials(
    StepServices& s, connectors::Handle handle, const std::optional<domain::Owner>& owner
);

/// The outcome "this create failed for good".
Transition FailCreate(const WorkflowState& st, const std::string& reason);

/// Records the failure of attempt `seq` and moves on to the next candidate (the deploy step then
/// reports exhaustion when there is none); the failed attempt is cleaned up unless it was the
/// last candidate and the user asked to keep it. In the same commit it gives back the claims the
/// deployment holds on the failed site's SLA; the next deploy step reserves the next one's first.
Transition NextSite(const WorkflowState& st, int seq, const std::string& reason);

/// "Retries on cloud providers exhausted. Error list is:" with every attempt's site and reason.
std::string ExhaustedMessage(const WorkflowState& st);

/// Node attributes → resource rows (physical ids, states, VirtualMachineInfo for VMs).
std::vector<ResourceChange> InstanceChanges(
    const std::vector<connectors::InstanceState>& instances, std::optional<domain::NodeState> state
);

int CandidateCount(const WorkflowState& st);

/// The outputs of a deployment the site reports ready: evaluated from its attributes, the site's
/// own values (IM evaluates them) winning; `note` names the outputs left without a value and why,
/// for statusReason ("" when every output has one).
struct ReadyOutputs {
    Json values = Json::object();
    std::string note;
};
ReadyOutputs OutputsOf(StepServices& s, const tosca::DeploymentSpec& spec, const connectors::Observation& obs);

}  // namespace orch::workflow::steps
