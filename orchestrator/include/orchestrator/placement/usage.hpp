#pragma once

#include "common/result.hpp"
#include "orchestrator/placement/placer.hpp"
#include "tosca/deployment_spec.hpp"

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace orch::placement {

/// Resources of one deployment, or a sum of them.
struct ResourceTotals {
    double cpus = 0;
    std::uint64_t ram_mb = 0;
    int gpus = 0;
    int instances = 0;

    ResourceTotals& operator+=(const ResourceTotals& other);
};

/// What a deployment asks for: over its workload nodes (spec.WorkloadNodes()), count × the per-
/// instance cpus, memory and GPUs; instances = Σ count. Unset cpus/memory count as 0. The
/// PostgreSQL UsageSource must store exactly this per deployment so quotas add up consistently.
ResourceTotals RequestedResources(const tosca::DeploymentSpec& spec);

/// Resources held by active deployments, as quotas see them.
struct Usage {
    ResourceTotals group;  ///< every active deployment whose user_group is the requester's group
    ResourceTotals user;   ///< the active deployments of (issuer, subject) within that same group
    /// The same two sums split by the CMDB service the deployment runs on (deployments not yet
    /// placed on a service count in `group`/`user` only). Used for per-service SLA quotas.
    std::map<std::string, ResourceTotals> group_by_service;
    std::map<std::string, ResourceTotals> user_by_service;
};

/// Current usage from the orchestrator's own database (the lead implements it on PostgreSQL).
///
/// Semantics the implementation must follow:
/// * "active" = every deployment row whose status is not DELETE_COMPLETE and not CREATE_FAILED
///   (CREATE_IN_PROGRESS, CREATE_COMPLETE, UPDATE_IN_PROGRESS, UPDATE_COMPLETE, UPDATE_FAILED,
///   DELETE_IN_PROGRESS, DELETE_FAILED and UNKNOWN all hold or may hold resources), except a
///   CREATE_IN_PROGRESS deployment not placed yet: it waits for admission and holds nothing.
/// * A deployment's resources are RequestedResources() of its current spec.
/// * `exclude_deployment_id` (may be empty) is left out of every sum: on an update or a retry the
///   deployment being placed must not count against itself.
/// * Errors (database down) are returned; placement then refuses quota-limited requests with a reason.
class UsageSource {
   public:
    virtual ~UsageSource() = default;
    virtual Result<Usage> ActiveUsage(const Requester& requester, const std::string& exclude_deployment_id) = 0;
};

/// The outcome of one attempt to deploy on a service (one try of the workflow's retry loop).
struct AttemptOutcome {
    std::chrono::system_clock::time_point at;  ///< when the attempt ended
    bool success = false;                      ///< reached CREATE_COMPLETE on this service
    std::string deployment_id;
    std::string error;  ///< the failure text when !success (shown in explanations)
};

/// Hashes ids so a map keyed by std::string is searched with a string_view.
struct IdHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view id) const { return std::hash<std::string_view>{}(id); }
};

/// Attempts per service id; a service without attempts has no entry.
using AttemptsByService = std::unordered_map<std::string, std::vector<AttemptOutcome>, IdHash, std::equal_to<>>;

/// Recent attempts per CMDB service, newest first, at most `limit`. Failures are attempts that
/// ended with a provider error (the workflow's "try another site" / provider timeout), not user
/// errors; an attempt still running is not an outcome. An unreachable store yields an empty list.
class SiteHistory {
   public:
    virtual ~SiteHistory() = default;
    virtual std::vector<AttemptOutcome> RecentAttempts(const std::string& service_id, std::size_t limit) = 0;
    /// RecentAttempts of every service in `service_ids` at once. Placement ranks thousands of
    /// services: stores answer in one round trip (this default asks service by service).
    virtual AttemptsByService RecentAttemptsOf(const std::vector<std::string_view>& service_ids, std::size_t limit);
};

/// In-memory UsageSource for tests and the database-less demo.
class InMemoryUsageSource : public UsageSource {
   public:
    /// Records (or replaces) a deployment as active on `service_id` (empty = not placed yet).
    void Put(
        const std::string& deployment_id,
        const Requester& owner,
        const std::string& service_id,
        const ResourceTotals& totals
    );
    /// Forgets a deployment (it was deleted or failed).
    void Remove(const std::string& deployment_id);
    /// Makes every call fail (to test the refusal when usage cannot be read).
    void SetFailure(std::string message);

    Result<Usage> ActiveUsage(const Requester& requester, const std::string& exclude_deployment_id) override;

   private:
    struct Record {
        Requester owner;
        std::string service_id;
        ResourceTotals totals;
    };
    std::mutex mutex_;
    std::map<std::string, Record> records_;
    std::string failure_;
};

/// In-memory SiteHistory for tests and the database-less demo.
class InMemorySiteHistory : public SiteHistory {
   public:
    void Record(const std::string& service_id, AttemptOutcome outcome);
    std::vector<AttemptOutcome> RecentAttempts(const std::string& service_id, std::size_t limit) override;
    AttemptsByService RecentAttemptsOf(const std::vector<std::string_view>& service_ids, std::size_t limit) override;
    /// How many times the history was read (one per placement when batched).
    std::size_t reads() const;

   private:
    std::vector<AttemptOutcome> NewestLocked(const std::vector<AttemptOutcome>& list, std::size_t limit) const;

    mutable std::mutex mutex_;
    std::map<std::string, std::vector<AttemptOutcome>, std::less<>> by_service_;  ///< oldest first
    std::size_t reads_ = 0;
};

}  // namespace orch::placement
