#include "test_support/in_memory_elastic_store.hpp"

#include <algorithm>

namespace orch::test {

Result<std::vector<std::string>> InMemoryElasticStore::Candidates(int limit) {
    const std::lock_guard lock(db_.mutex());
    // Never swept first, then longest ago, then by id: the PostgreSQL store's ORDER BY.
    std::vector<std::pair<std::optional<workflow::ElasticTime>, std::string>> found;
    for (const auto& [id, row] : db_.rows()) {
        const auto s = row.deployment.status;
        if (s != domain::Status::kCreateComplete && s != domain::Status::kUpdateComplete) {
            continue;
        }
        const auto it = rows_.find(id);
        found.emplace_back(it == rows_.end() ? std::nullopt : std::optional(it->second.checked_at), id);
    }
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
        if (a.first.has_value() != b.first.has_value()) {
            return !a.first.has_value();
        }
        return a < b;
    });
    std::vector<std::string> out;
    for (const auto& f : found) {
        if (static_cast<int>(out.size()) >= limit) {
            break;
        }
        out.push_back(f.second);
    }
    return out;
}

Result<std::optional<workflow::ElasticMemory>> InMemoryElasticStore::ClaimTurn(
    const std::string& deployment_id, workflow::ElasticTime now, std::chrono::milliseconds gap
) {
    const std::lock_guard lock(db_.mutex());
    if (db_.rows().count(deployment_id) == 0) {
        return std::optional<workflow::ElasticMemory>();
    }
    auto [it, inserted] = rows_.try_emplace(deployment_id, Row{now, {}});
    if (!inserted) {
        if (it->second.checked_at > now - gap) {
            return std::optional<workflow::ElasticMemory>();
        }
        it->second.checked_at = now;
    }
    return std::optional(it->second.memory);
}

Status InMemoryElasticStore::Save(
    const std::string& deployment_id, const workflow::ElasticMemory& memory, const std::optional<domain::Event>& event
) {
    const std::lock_guard lock(db_.mutex());
    if (const auto it = rows_.find(deployment_id); it != rows_.end()) {
        it->second.memory = memory;
    }
    if (event) {
        db_.InsertCallback(deployment_id);
        db_.AppendEvents(deployment_id, {*event});
    }
    return Ok();
}

}  // namespace orch::test
