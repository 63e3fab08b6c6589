#pragma once

#include "orchestrator/store/pg_pool.hpp"
#include "orchestrator/workflow/iam_client_store.hpp"

namespace orch::store {

/// IamClientStore on PostgreSQL: the iam_clients table (migration 0017).
class PgIamClientStore final : public workflow::IamClientStore {
   public:
    explicit PgIamClientStore(PgPool& pool) : pool_(pool) {}

    Status Reserve(const workflow::IamClientRecord& record) override;
    Status MarkRegistered(
        const std::string& id,
        const std::string& client_id,
        const std::string& registration_client_uri,
        const std::string& sealed_registration_token
    ) override;
    Status MarkUnconfirmed(const std::string& id) override;
    Status Forget(const std::string& id) override;
    Result<std::vector<workflow::IamClientRecord>> ForDeployment(const std::string& deployment_id) override;
    Result<std::vector<workflow::IamClientRecord>> CreatedBefore(domain::TimePoint before, int limit) override;

   private:
    PgPool& pool_;
};

}  // namespace orch::store
