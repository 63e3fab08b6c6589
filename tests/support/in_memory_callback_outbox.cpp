// The in-memory workflow store's callback outbox (pg_callback_outbox.cpp's fake).
#include "test_support/in_memory_stores.hpp"

#include <orchestrator/workflow/lease_lost.hpp>

#include <algorithm>

namespace orch::test {
namespace {

using Lock = std::lock_guard<std::mutex>;

// As the PostgreSQL outbox answers a delivery whose claim lapsed.
using workflow::kLeaseLost;

}  // namespace

namespace {

// The row of a delivery still leased to its claimer, or null (the PostgreSQL store's fence).
InMemoryDatabase::CallbackRow* HeldCallback(InMemoryDatabase& db, const workflow::CallbackDelivery& d) {
    for (auto& c : db.callbacks()) {
        if (c.delivery.id == d.id && !d.lease_owner.empty() && c.delivery.lease_owner == d.lease_owner) {
            return &c;
        }
    }
    return nullptr;
}

}  // namespace

Result<std::vector<workflow::CallbackDelivery>> InMemoryWorkflowStore::ClaimCallbacks(
    const std::string& owner, int max, std::chrono::milliseconds lease
) {
    const Lock lock(db_.mutex());
    const auto now = db_.clock().now();
    std::vector<InMemoryDatabase::CallbackRow*> due;
    for (auto& c : db_.callbacks()) {
        if (c.next_at <= now && (!c.lease_until || *c.lease_until < now)) {
            due.push_back(&c);
        }
    }
    std::stable_sort(due.begin(), due.end(), [](const auto* a, const auto* b) { return a->next_at < b->next_at; });
    std::vector<workflow::CallbackDelivery> out;
    for (auto* c : due) {
        if (static_cast<int>(out.size()) >= max) {
            break;
        }
        c->delivery.lease_owner = owner;
        c->lease_until = now + lease;
        ++c->delivery.attempts;
        out.push_back(c->delivery);
    }
    return out;
}

Status InMemoryWorkflowStore::FinishCallback(const workflow::CallbackDelivery& delivery) {
    const Lock lock(db_.mutex());
    if (HeldCallback(db_, delivery) == nullptr) {
        return kLeaseLost;
    }
    std::erase_if(db_.callbacks(), [&](const auto& c) { return c.delivery.id == delivery.id; });
    return Ok();
}

Status InMemoryWorkflowStore::RetryCallback(
    const workflow::CallbackDelivery& delivery, std::chrono::milliseconds delay, const std::string& error
) {
    const Lock lock(db_.mutex());
    auto* row = HeldCallback(db_, delivery);
    if (row == nullptr) {
        return kLeaseLost;
    }
    row->delivery.lease_owner.clear();
    row->lease_until.reset();
    row->last_error = error.substr(0, 2000);
    row->next_at = db_.clock().now() + delay;
    return Ok();
}

}  // namespace orch::test
