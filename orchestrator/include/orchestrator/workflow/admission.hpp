#pragma once

#include "common/json.hpp"
#include "orchestrator/domain/event.hpp"
#include "orchestrator/placement/placer.hpp"
#include "orchestrator/placement/usage.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace orch::workflow {

/// Whom a quota counter limits: the group or one user of it, everywhere or on one service.
enum class QuotaScope { kGroup, kUser, kGroupOnService, kUserOnService };

/// What a quota counter counts.
enum class QuotaResource { kGpus, kCpus, kRamMb, kInstances };

/// "group", "user", "group_service", "user_service" (the quota_counters table's `scope`).
std::string_view QuotaScopeName(QuotaScope scope);
std::optional<QuotaScope> ParseQuotaScope(std::string_view name);
/// "gpus", "cpus", "ram_mb", "instances" (the quota_counters table's `resource`).
std::string_view QuotaResourceName(QuotaResource resource);
std::optional<QuotaResource> ParseQuotaResource(std::string_view name);

/// One quota counter row. Members that do not apply to the scope are empty (a group counter has
/// no subject, a counter over every service no service id).
struct CounterKey {
    QuotaScope scope = QuotaScope::kGroup;
    std::string issuer;
    std::string group;
    std::string subject;
    std::string service_id;
    QuotaResource resource = QuotaResource::kGpus;
    /// GPUs of one class only (docs/admission.md, "GPU classes"); empty: every GPU, and always
    /// empty for the other resources. Migration 0016's `gpu_class` column.
    std::string gpu_class;

    /// The lock order of counter rows: every transaction that locks several counters locks them
    /// in this order (after the deployment and job rows), so two admissions cannot deadlock.
    /// (Written out: clang-tidy 14 misreads a defaulted operator<=>.)
    auto Tie() const { return std::tie(scope, issuer, group, subject, service_id, resource, gpu_class); }
    bool operator<(const CounterKey& other) const { return Tie() < other.Tie(); }
    bool operator==(const CounterKey& other) const { return Tie() == other.Tie(); }
};

/// `amount` more of the key's resource, admitted only while reserved + in use + amount ≤ limit.
struct QuotaClaim {
    CounterKey key;
    double amount = 0;
    double limit = 0;
};

/// The reservation a place step asks for, made in the same transaction as its commit. When one
/// claim does not fit, nothing of the transition is written: the job waits `retry_delay` and
/// the deployment's statusReason becomes `queued_reason` (it stays CREATE_IN_PROGRESS).
struct Admission {
    std::vector<QuotaClaim> claims;  ///< sorted by key (the lock order), amounts > 0
    std::string queued_reason;
    std::chrono::milliseconds retry_delay{0};
    /// When it does not fit, the job's payload gets this record (admission_queue.hpp) so the
    /// request is in the queue other admissions order themselves against.
    Json waiting = nullptr;
    /// A move to another candidate site (docs/admission.md, "Moving on"): only the claims on
    /// services (group_service, user_service) are replaced by `claims`, which hold only such
    /// claims; the group and user claims stay as they are. Otherwise everything is replaced.
    bool services_only = false;
    /// When it does not fit and the wait starts now (the statusReason was another), what the
    /// store writes with the queued reason: the progress event ("waiting": "capacity") and its
    /// log line, stamped by the step. Empty on a retry of the same wait: one event per wait.
    std::vector<domain::Event> queued_events;
    std::string queued_log;
};

/// Whether the claim's counter is one service's (an SLA's) rather than every service's.
bool OnService(const CounterKey& key);

/// Where a deployment's admitted resources are.
enum class AdmissionState { kReserved, kInUse };
std::string_view AdmissionStateName(AdmissionState state);  ///< "reserved", "in_use"

/// A counter as stored: what admitted deployments hold against it.
struct QuotaCounter {
    CounterKey key;
    double reserved = 0;  ///< admitted deployments not yet CREATE_COMPLETE
    double in_use = 0;    ///< deployments that reached CREATE_COMPLETE
};

/// The claims for a deployment of `spec` asking `request` (RequestedResources of `spec`) that
/// placement decided: the configured group and user quotas (all services) and the SLA quotas of
/// the candidate `candidate` (the first one when admitted; the next one when the workflow moves
/// on), GPUs per class included (GpusOfClass). Resources without a limit are not claimed; the
/// result is sorted.
std::vector<QuotaClaim> ClaimsFor(
    const placement::PlacementDecision& decision,
    const placement::Requester& requester,
    const placement::ResourceTotals& request,
    const tosca::DeploymentSpec& spec,
    std::size_t candidate = 0
);

/// What an update (PUT, an elastic scale) changes on the counters: for each counter either list
/// names, `after`'s amount minus `before`'s (both ClaimsFor of the same decision and candidate,
/// for the old and the new spec). Positive: a growth the update reserves; negative: what it gives
/// back once it completes. Unchanged counters are left out; the limit is `after`'s (else
/// `before`'s); the result is sorted by key (the lock order).
std::vector<QuotaClaim> UpdateClaims(const std::vector<QuotaClaim>& before, const std::vector<QuotaClaim>& after);

/// The quota a counter is, for messages: "group 'g'", "user 's' of group 'g'", "group 'g' on
/// service 'id'", "user 's' of group 'g' on service 'id'".
std::string QuotaName(const CounterKey& key);
/// What a counter counts, for messages: "GPU", the class name ("V100"), "CPU", "MB of RAM",
/// "instance(s)".
std::string QuotaUnit(const CounterKey& key);

/// The 409 message of an update whose growth `claim` does not fit its counter, which holds
/// `held` (reserved + in use, the deployment's own included): updates are not queued (the
/// original has no queue for them), so the reason is told and nothing is changed.
std::string UpdateRefusedMessage(const QuotaClaim& claim, double held);

/// Claims as stored with each candidate (the candidate JSON's `admission_claims`), so the move
/// to that candidate reserves what its SLA limits without placing again. Entries that do not
/// read back (a newer build's scope or resource) are skipped.
Json ClaimsToJson(const std::vector<QuotaClaim>& claims);
std::vector<QuotaClaim> ClaimsFromJson(const Json& json);

/// What a waiting request waits for, for statusReason: "2 × V100" (the GPU class it claims, else
/// the model it asks for), "2 × GPU", "4 × CPU" or "1 instance(s)".
std::string WaitingFor(
    const placement::ResourceTotals& request, const std::vector<QuotaClaim>& claims, const tosca::DeploymentSpec& spec
);

}  // namespace orch::workflow
