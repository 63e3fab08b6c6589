// Request handlers (delete, reset, update) and workflow workers change the same deployment,
// job and status-counter rows at the same time. They must take those row locks in one order, or
// PostgreSQL aborts one of them with a deadlock, which used to reach the client as a 409 or a 500.
#include "workflow_harness.hpp"

#include <catch2/catch.hpp>
#include <pqxx/pqxx>

#include <atomic>
#include <random>
#include <thread>

using orch::domain::Status;
using orch::test::WorkflowHarness;

namespace {

// Deadlocks PostgreSQL detected in this test's database, whoever the victim was (a handler or a
// worker whose error the engine absorbs, or a transaction retried by the pool).
std::int64_t DeadlocksIn(const std::string& dsn) {
    pqxx::connection conn(dsn);
    pqxx::nontransaction tx(conn);
    return tx.exec1("SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()")[0].as<std::int64_t>();
}

// What a storm thread saw that a client must never see: anything but a state conflict or a
// missing deployment (the contract's answers to a request that lost a race).
struct Unexpected {
    std::mutex mutex;
    std::vector<std::string> errors;

    void Check(const orch::Status& status) {
        if (status) {
            return;
        }
        const auto& e = status.error();
        const bool state_conflict = e.code == orch::ErrorCode::kConflict && !e.details.retry_after.has_value();
        if (state_conflict || e.code == orch::ErrorCode::kNotFound) {
            return;
        }
        const std::lock_guard lock(mutex);
        errors.push_back(e.message);
    }
};

orch::store::UpdateRequest UpdateOf(const std::string& id) {
    orch::store::UpdateRequest u;
    u.id = id;
    u.template_text = "tosca_definitions_version: tosca_simple_yaml_1_0";
    u.parameters = orch::Json::object();
    u.req_instances = 1;
    return u;
}

// One storm thread: random delete/reset/update calls on random deployments until `stop`.
void Storm(
    WorkflowHarness& h,
    const std::vector<std::string>& ids,
    unsigned seed,
    const std::atomic<bool>& stop,
    Unexpected& unexpected
) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<std::size_t> pick(0, ids.size() - 1);
    std::uniform_int_distribution<int> op(0, 2);
    while (!stop.load()) {
        const std::string& id = ids[pick(rng)];
        switch (op(rng)) {
            case 0:
                unexpected.Check(h.deployments.BeginDelete(id, false));
                break;
            case 1:
                unexpected.Check(h.deployments.ResetToDeleteFailed(id));
                break;
            default:
                unexpected.Check(h.deployments.BeginUpdate(UpdateOf(id)));
                break;
        }
        h.engine->Wake();
    }
}

}  // namespace

TEST_CASE("deletes, resets and updates racing the workers never deadlock", "[workflow][locks]") {
    WorkflowHarness h({"site-a"});
    h.connector.SetBehaviour("site-a", {.polls_until_ready = 3});
    auto second = h.StartEngine("engine-b");
    std::vector<std::string> ids;
    for (int i = 0; i < 24; ++i) {
        ids.push_back(h.Create());
    }
    const std::int64_t deadlocks_before = DeadlocksIn(h.db.dsn());

    Unexpected unexpected;
    std::atomic<bool> stop{false};
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] { Storm(h, ids, 7919 * (t + 1), stop, unexpected); });
    }
    std::this_thread::sleep_for(std::chrono::seconds(8));
    stop = true;
    for (auto& t : threads) {
        t.join();
    }
    second->Stop();

    for (const auto& message : unexpected.errors) {
        UNSCOPED_INFO(message);
    }
    CHECK(unexpected.errors.empty());
    // Backends publish their counters when idle, at most once a second.
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
    CHECK(DeadlocksIn(h.db.dsn()) - deadlocks_before == 0);
    // Whatever the storm left behind still settles: the engine is not wedged by lost commits.
    for (const auto& id : ids) {
        if (!h.deployments.BeginDelete(id, false)) {
            const auto status = h.WaitFor(id, {Status::kDeleteInProgress, Status::kDeleteComplete}).status;
            CHECK((status == Status::kDeleteInProgress || status == Status::kDeleteComplete));
        }
    }
    h.engine->Wake();
    for (const auto& id : ids) {
        CHECK(h.WaitFor(id, {Status::kDeleteComplete, Status::kDeleteFailed}).status == Status::kDeleteComplete);
    }
}
