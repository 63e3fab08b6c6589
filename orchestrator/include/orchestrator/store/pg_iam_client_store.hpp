#pragma once

#include "orchestrator/auth/iam_client_store.hpp"
#include "orchestrator/store/pg_pool.hpp"

namespace orch::store {

/// IamClientStore on PostgreSQL: the iam_clients table (migration 0017).
class PgIamClientStore final : public auth::IamClientStore {
   public:
    explicit PgIamClientStore(PgPool& pool) : pool_(pool) {}

    Status Reserve(const auth::IamClientRecord& record) override;
    Status MarkRegistered(
        const std::string& id,
        const std::string& client_id,
        const std::string& registration_client_uri,
        const std::string& sealed_registration_token
    ) override;
    Status MarkUnconfirmed(const std::string& id) override;
    Status Forget(const std::string& id) override;
    Result<std::vector<auth::IamClientRecord>> ForDeployment(const std::string& deployment_id) override;
    Result<std::vector<auth::IamClientRecord>> CreatedBefore(Clock::WallTime before, int limit) override;

   private:
    PgPool& pool_;
};

}  // namespace orch::store
