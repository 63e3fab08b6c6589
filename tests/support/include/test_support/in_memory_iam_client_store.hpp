#pragma once

// The in-memory twin of PgIamClientStore (migration 0017), held to the same contract
// (store_contract.hpp: IamClientRecords).
#include <orchestrator/workflow/iam_client_store.hpp>

#include <map>
#include <mutex>
#include <string>

namespace orch::test {

class InMemoryIamClientStore final : public workflow::IamClientStore {
   public:
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
    std::vector<workflow::IamClientRecord> SortedLocked() const;

    mutable std::mutex mutex_;
    std::map<std::string, workflow::IamClientRecord> rows_;
};

}  // namespace orch::test
