#pragma once

#include "orchestrator/store/deployment_store.hpp"
#include "orchestrator/store/list_cursor_cache.hpp"
#include "orchestrator/store/pg_pool.hpp"

namespace orch::store {

/// DeploymentStore on PostgreSQL (schema in migrations/0002_deployments.sql).
class PgDeploymentStore final : public DeploymentStore {
   public:
    explicit PgDeploymentStore(PgPool& pool) : pool_(pool) {}

    Status Create(const NewDeployment& created) override;
    Result<std::optional<domain::Deployment>> Get(const std::string& id) override;
    Result<Page<domain::Deployment>> List(const ListQuery& query) override;
    Result<Page<domain::Resource>> ListResources(
        const std::string& deployment_id,
        const std::optional<std::string>& type,
        int page,
        int size,
        const std::vector<SortKey>& sort
    ) override;
    Result<std::optional<domain::Resource>> GetResource(
        const std::string& deployment_id, const std::string& resource_id
    ) override;
    Status BeginDelete(const std::string& id, bool force) override;
    Status BeginUpdate(const UpdateRequest& update) override;
    Status ResetToDeleteFailed(const std::string& id) override;
    Result<std::string> GetLog(const std::string& id) override;
    Result<Json> GetPlacement(const std::string& id) override;
    Result<std::vector<domain::Attempt>> ListAttempts(const std::string& id) override;
    Status BeginAction(const std::string& id, const std::string& resource_id, const std::string& action) override;
    Status RenewLease(const std::string& id, domain::TimePoint expires_at) override;

   private:
    PgPool& pool_;
    ListCursorCache cursors_;  ///< deep pages' keyset anchors (this replica's; checked per statement)
};

}  // namespace orch::store
