#include "test_support/in_memory_iam_client_store.hpp"

#include <algorithm>

namespace orch::test {

Status InMemoryIamClientStore::Reserve(const auth::IamClientRecord& record) {
    const std::lock_guard lock(mutex_);
    auth::IamClientRecord row = record;
    row.state = auth::IamClientState::kRegistering;
    row.client_id.clear();
    row.registration_client_uri.clear();
    row.sealed_registration_token.clear();
    // The database keeps microseconds.
    row.created_at = std::chrono::time_point_cast<std::chrono::microseconds>(record.created_at);
    if (!rows_.emplace(record.id, row).second) {
        return Error::Conflict("IAM client record " + record.id + " exists");
    }
    return Ok();
}

Status InMemoryIamClientStore::MarkRegistered(
    const std::string& id,
    const std::string& client_id,
    const std::string& registration_client_uri,
    const std::string& sealed_registration_token
) {
    const std::lock_guard lock(mutex_);
    const auto it = rows_.find(id);
    if (it == rows_.end()) {
        return Error::NotFound("no IAM client record " + id);
    }
    it->second.state = auth::IamClientState::kRegistered;
    it->second.client_id = client_id;
    it->second.registration_client_uri = registration_client_uri;
    it->second.sealed_registration_token = sealed_registration_token;
    return Ok();
}

Status InMemoryIamClientStore::MarkUnconfirmed(const std::string& id) {
    const std::lock_guard lock(mutex_);
    const auto it = rows_.find(id);
    if (it == rows_.end()) {
        return Error::NotFound("no IAM client record " + id);
    }
    it->second.state = auth::IamClientState::kUnconfirmed;
    return Ok();
}

Status InMemoryIamClientStore::Forget(const std::string& id) {
    const std::lock_guard lock(mutex_);
    rows_.erase(id);
    return Ok();
}

std::vector<auth::IamClientRecord> InMemoryIamClientStore::SortedLocked() const {
    std::vector<auth::IamClientRecord> out;
    for (const auto& [id, row] : rows_) {
        out.push_back(row);
    }
    // The PostgreSQL store's ORDER BY created_at, id.
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
        return std::tie(a.created_at, a.id) < std::tie(b.created_at, b.id);
    });
    return out;
}

Result<std::vector<auth::IamClientRecord>> InMemoryIamClientStore::ForDeployment(const std::string& deployment_id) {
    const std::lock_guard lock(mutex_);
    auto rows = SortedLocked();
    std::erase_if(rows, [&](const auto& r) { return r.deployment_id != deployment_id; });
    return rows;
}

Result<std::vector<auth::IamClientRecord>> InMemoryIamClientStore::CreatedBefore(Clock::WallTime before, int limit) {
    const std::lock_guard lock(mutex_);
    auto rows = SortedLocked();
    std::erase_if(rows, [&](const auto& r) { return r.created_at >= before; });
    if (static_cast<int>(rows.size()) > limit) {
        rows.resize(static_cast<std::size_t>(std::max(limit, 0)));
    }
    return rows;
}

}  // namespace orch::test
