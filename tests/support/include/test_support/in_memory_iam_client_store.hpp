#pragma once

// The in-memory twin of PgIamClientStore (migration 0017), held to the same contract
// (store_contract.hpp: IamClientRecords).
#include <orchestrator/auth/iam_client_store.hpp>

#include <map>
#include <mutex>
#include <string>

namespace orch::test {

class InMemoryIamClientStore final : public auth::IamClientStore {
   public:
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
    std::vector<auth::IamClientRecord> SortedLocked() const;

    mutable std::mutex mutex_;
    std::map<std::string, auth::IamClientRecord> rows_;
};

}  // namespace orch::test
