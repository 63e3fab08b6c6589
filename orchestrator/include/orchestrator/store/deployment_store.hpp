#pragma once

#include "common/json.hpp"
#include "common/result.hpp"
#include "orchestrator/auth/owner_filter.hpp"
#include "orchestrator/domain/attempt.hpp"
#include "orchestrator/domain/deployment.hpp"
#include "orchestrator/domain/event.hpp"
#include "orchestrator/workflow/admission.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace orch::store {

struct SortKey {
    std::string column;  ///< a whitelisted column name
    bool descending = true;
};

/// GET /deployments. `owner` has no default: a query cannot be built without the caller's scope.
struct ListQuery {
    auth::OwnerFilter owner;
    std::optional<std::string> user_group;
    std::vector<std::string> excluded_status;
    bool include_deleted = false;  ///< DELETE_COMPLETE rows (audit records) are listed too
    int page = 0;
    int size = 10;
    std::vector<SortKey> sort;  ///< empty = created_at desc
};

template <typename T>
struct Page {
    std::vector<T> items;
    std::int64_t total = 0;
};

/// A newly created deployment with its resources and the first workflow step.
struct NewDeployment {
    domain::Deployment deployment;
    std::vector<domain::Resource> resources;
};

/// What PUT (update) changes, applied atomically only if the status still allows it.
struct UpdateRequest {
    std::string id;
    std::string template_text;
    Json parameters;       ///< merged already
    std::string callback;  ///< empty = unchanged
    domain::RequestOptions options;
    std::vector<domain::Resource> added;            ///< new instances (state CREATING)
    std::vector<std::string> removed_resource_ids;  ///< instances going away (state DELETING)
    double req_cpus = 0;
    std::int64_t req_mem_mb = 0;
    int req_gpus = 0;
    int req_instances = 0;
    /// A new lease end (renewal with the update); none = the lease is left as it is.
    std::optional<domain::TimePoint> expires_at;
    /// Appended to the event log in the update's transaction, with one callback delivery when
    /// not empty: an elastic scale's decision, so a kill cannot leave the scale without its event.
    std::vector<domain::Event> events;
    /// The update's change of quota claims (workflow::UpdateClaims): each growth is reserved in
    /// the update's transaction, which is refused (kConflict naming the quota, nothing written)
    /// when one does not fit now; a shrink is given back when the update completes.
    std::vector<workflow::QuotaClaim> admission;
};

/// Maps the API's sort property names (createdAt, updatedAt, status, ...) to columns;
/// nullopt for an unknown property.
std::optional<std::string> SortColumnFor(const std::string& property);

/// Deployment persistence. Every state-changing call is one transaction that re-checks the
/// status it depends on, so concurrent requests cannot both succeed. Errors: kNotFound,
/// kConflict (status does not allow it; message is the contract's), kUnavailable.
inline constexpr int kMaxListedAttempts = 1000;

class DeploymentStore {
   public:
    virtual ~DeploymentStore() = default;

    virtual Status Create(const NewDeployment& created) = 0;
    virtual Result<std::optional<domain::Deployment>> Get(const std::string& id) = 0;
    virtual Result<Page<domain::Deployment>> List(const ListQuery& query) = 0;

    virtual Result<Page<domain::Resource>> ListResources(
        const std::string& deployment_id,
        const std::optional<std::string>& type,
        int page,
        int size,
        const std::vector<SortKey>& sort
    ) = 0;
    virtual Result<std::optional<domain::Resource>> GetResource(
        const std::string& deployment_id, const std::string& resource_id
    ) = 0;

    /// DELETE: → DELETE_IN_PROGRESS, cancels pending workflow steps, queues the undeploy.
    virtual Status BeginDelete(const std::string& id, bool force) = 0;
    /// PUT: → UPDATE_IN_PROGRESS when status is CREATE_COMPLETE, UPDATE_COMPLETE or UPDATE_FAILED.
    virtual Status BeginUpdate(const UpdateRequest& update) = 0;
    /// PATCH: DELETE_IN_PROGRESS → DELETE_FAILED.
    virtual Status ResetToDeleteFailed(const std::string& id) = 0;
    /// The stored placement explanation (null before placement).
    virtual Result<Json> GetPlacement(const std::string& id) = 0;
    /// The target's log text for GET /log (empty when none).
    virtual Result<std::string> GetLog(const std::string& id) = 0;
    /// The deployment's attempts (one per site tried), oldest first, at most kMaxListedAttempts
    /// (maxProvidersRetry is at most 1,000). Empty before the first attempt or for an unknown id.
    virtual Result<std::vector<domain::Attempt>> ListAttempts(const std::string& id) = 0;
    /// POST action: resource STARTED/STOPPED → STOPPING/STARTING and queues the action.
    virtual Status BeginAction(const std::string& id, const std::string& resource_id, const std::string& action) = 0;
    /// Renewal (PATCH/PUT expiresAt): sets a new lease end and resets its warnings, touching
    /// nothing else (no workflow step). kConflict once the deployment is being deleted.
    virtual Status RenewLease(const std::string& id, domain::TimePoint expires_at) = 0;
};

}  // namespace orch::store
