#include "slurm/slurm_states.hpp"

#include <algorithm>
#include <array>

namespace orch::connectors::slurm {
namespace {

constexpr std::array<std::string_view, 8> kFailedStates = {
    "FAILED",
    "CANCELLED",
    "TIMEOUT",
    "NODE_FAIL",
    "PREEMPTED",
    "BOOT_FAIL",
    "DEADLINE",
    "OUT_OF_MEMORY",
};
// The job itself is at fault: any site would end it the same way.
constexpr std::array<std::string_view, 3> kUserFaultStates = {"FAILED", "TIMEOUT", "OUT_OF_MEMORY"};
// Pending reasons that never clear by waiting on this site.
constexpr std::array<std::string_view, 7> kHopelessReasons = {
    "BadConstraints",
    "PartitionConfig",
    "InvalidAccount",
    "InvalidQOS",
    "PartitionNodeLimit",
    "PartitionTimeLimit",
    "PartitionDown",
};

template <std::size_t N>
bool OneOf(const std::array<std::string_view, N>& list, const std::string& value) {
    return std::find(list.begin(), list.end(), value) != list.end();
}

bool IsFailed(const std::string& state) {
    return OneOf(kFailedStates, state);
}
bool IsEnded(const std::string& state) {
    return state.empty() || state == "COMPLETED" || IsFailed(state);
}

// The one map from Slurm's job_state words to instance statuses; a word not listed (a newer
// Slurm's, or a garbled record) is kUnknown, not STARTED.
InstanceStatus StatusOf(const std::string& state, bool marked) {
    if (state.empty() || (marked && IsEnded(state))) {
        return InstanceStatus::kDeleted;
    }
    if (marked) {
        return InstanceStatus::kDeleting;
    }
    constexpr std::array<std::string_view, 6> kQueued = {
        "PENDING", "CONFIGURING", "REQUEUED", "REQUEUE_FED", "REQUEUE_HOLD", "RESV_DEL_HOLD"};
    constexpr std::array<std::string_view, 5> kRunning = {
        "RUNNING", "COMPLETING", "SIGNALING", "STAGE_OUT", "RESIZING"};
    constexpr std::array<std::string_view, 3> kHalted = {"COMPLETED", "SUSPENDED", "STOPPED"};
    if (OneOf(kQueued, state)) {
        return InstanceStatus::kCreating;
    }
    if (OneOf(kRunning, state)) {
        return InstanceStatus::kStarted;
    }
    if (OneOf(kHalted, state)) {
        return InstanceStatus::kStopped;  // COMPLETED ran to the end: nothing runs any more, nothing failed
    }
    if (IsFailed(state) || state == "SPECIAL_EXIT") {
        return InstanceStatus::kError;
    }
    return InstanceStatus::kUnknown;
}

// Slurm reports the batch step's raw wait status.
std::string DescribeExit(int status) {
    if ((status & 0x7f) != 0) {
        return "killed by signal " + std::to_string(status & 0x7f);
    }
    return "exit code " + std::to_string((status >> 8) & 0xff);
}

}  // namespace

bool CancelledByUs(const Json& job) {
    return job.value("comment", "") == kCancelledMarker;
}

ConnectorResult<bool> CancelJob(SlurmRest& rest, std::int64_t job_id) {
    auto record = rest.GetJob(job_id);
    if (auto* failure = std::get_if<Failure>(&record)) {
        return *failure;
    }
    const auto& job = std::get<std::optional<Json>>(record);
    if (!job || IsEnded(job->value("job_state", ""))) {
        return true;
    }
    auto marked = rest.SetComment(job_id, std::string(kCancelledMarker));
    if (auto* failure = std::get_if<Failure>(&marked)) {
        return *failure;
    }
    if (!std::get<bool>(marked)) {
        return true;  // it finished between the two calls
    }
    auto cancelled = rest.Cancel(job_id);
    if (auto* failure = std::get_if<Failure>(&cancelled)) {
        return *failure;
    }
    auto after = rest.GetJob(job_id);
    if (auto* failure = std::get_if<Failure>(&after)) {
        return *failure;
    }
    const auto& now = std::get<std::optional<Json>>(after);
    return !now || IsEnded(now->value("job_state", ""));
}

void JobSetView::Add(
    const std::string& node, int index, const std::string& name, std::int64_t job_id, const std::optional<Json>& record
) {
    Entry entry;
    entry.name = name;
    if (record) {
        entry.state = record->value("job_state", "UNKNOWN");
        entry.reason = record->value("state_reason", "");
        entry.marked = CancelledByUs(*record);
        entry.exit_status = record->value("exit_code", 0);
    }
    InstanceState instance;
    instance.node = node;
    instance.index = index;
    instance.physical_id = std::to_string(job_id);
    instance.state = StatusOf(entry.state, entry.marked);
    instance.attributes = {
        {"job_id", job_id}, {"job_name", name}, {"job_state", entry.state.empty() ? "PURGED" : entry.state}};
    if (record) {
        instance.attributes["state_reason"] = entry.reason;
        instance.attributes["partition"] = record->value("partition", "");
        instance.attributes["nodes"] = record->value("nodes", "");
        if (IsEnded(entry.state)) {
            instance.attributes["exit_status"] = DescribeExit(entry.exit_status);
        }
    }
    auto& attrs = node_attributes_[node];
    if (attrs.is_null()) {
        attrs = {{"job_ids", Json::array()}, {"hosts", Json::array()}};
    }
    attrs["job_ids"].push_back(job_id);
    attrs["hosts"].push_back(record ? record->value("nodes", "") : "");
    entries_.push_back(std::move(entry));
    instances_.push_back(std::move(instance));
}

Observation JobSetView::Observe() const {
    Observation obs;
    obs.instances = instances_;
    obs.attributes = node_attributes_;
    if (entries_.empty()) {
        obs.phase = Phase::kReady;
        obs.reason = "the template asks for no Slurm job";
        return obs;
    }
    const bool deleting = std::any_of(entries_.begin(), entries_.end(), [](const Entry& e) { return e.marked; });
    const bool all_ended =
        std::all_of(entries_.begin(), entries_.end(), [](const Entry& e) { return IsEnded(e.state); });
    if (deleting || std::all_of(entries_.begin(), entries_.end(), [](const Entry& e) { return e.state.empty(); })) {
        obs.phase = all_ended ? Phase::kGone : Phase::kInProgress;
        obs.reason = all_ended ? "every Slurm job has ended" : "waiting for cancelled Slurm jobs to end";
        return obs;
    }
    for (const auto& e : entries_) {
        if (e.state.empty()) {
            obs.phase = Phase::kFailed;
            obs.failure = FailureKind::kTryAnotherSite;
            obs.reason = "Slurm job " + e.name + " disappeared from the controller before it was seen to finish";
            return obs;
        }
        if (IsFailed(e.state)) {
            obs.phase = Phase::kFailed;
            // Slurm also ends a job FAILED with a reason that is the site's, not the job's: an
            // impossible GPU request accepted at submission ends "FAILED (BadConstraints)" (seen
            // end to end); another site may run it.
            const bool job_at_fault = OneOf(kUserFaultStates, e.state) && !OneOf(kHopelessReasons, e.reason);
            obs.failure = job_at_fault ? FailureKind::kUserError : FailureKind::kTryAnotherSite;
            obs.reason = "Slurm job " + e.name + " ended " + e.state + " (" + DescribeExit(e.exit_status) +
                         (e.reason.empty() || e.reason == "None" ? "" : ", " + e.reason) + ")";
            return obs;
        }
        if (e.state == "PENDING" && OneOf(kHopelessReasons, e.reason)) {
            obs.phase = Phase::kFailed;
            obs.failure = FailureKind::kTryAnotherSite;
            obs.reason = "Slurm job " + e.name + " can never start on this site (" + e.reason + ")";
            return obs;
        }
    }
    const auto waiting =
        std::find_if(entries_.begin(), entries_.end(), [](const Entry& e) { return e.state != "COMPLETED"; });
    if (waiting == entries_.end()) {
        obs.phase = Phase::kReady;
        obs.reason = "every Slurm job completed";
        return obs;
    }
    obs.phase = Phase::kInProgress;
    obs.reason = "Slurm job " + waiting->name + " is " + waiting->state +
                 (waiting->reason.empty() || waiting->reason == "None" ? "" : " (" + waiting->reason + ")");
    return obs;
}

}  // namespace orch::connectors::slurm
