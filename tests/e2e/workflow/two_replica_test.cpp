// Two orchestrator processes on one database share the work: every deployment submitted to
// either is carried out exactly once, and when one replica dies with leased work in hand, the
// other takes the leases over once they expire and finishes everything.
#include "reliability_harness.hpp"
#include "test_support/process.hpp"
#include "test_support/test_env.hpp"

#include <catch2/catch.hpp>
#include <pqxx/pqxx>
#include <signal.h>

#include <functional>
#include <set>
#include <thread>

namespace {

using orch::reliability::Send;

// The full 500 of the brief: they finish in well under a minute on 2 loaded cores.
constexpr int kFirstBatch = 500;
constexpr int kTakeoverBatch = 60;

std::unique_ptr<orch::test::OrchestratorProcess> Replica(
    const std::string& dsn, const std::string& config, const std::string& id
) {
    return std::make_unique<orch::test::OrchestratorProcess>(
        dsn, std::map<std::string, std::string>{{"ORCHESTRATOR_INSTANCE_ID", id}}, config
    );
}

// Submits `count` deployments alternately to the replicas; returns the acknowledged ids.
// `between` runs after every tenth submission.
std::vector<std::string> SubmitAlternately(
    const std::vector<std::string>& base_urls, int count, const std::function<void()>& between = [] {}
) {
    std::vector<std::string> ids;
    for (int i = 0; i < count; ++i) {
        if (i % 10 == 9) {
            between();
        }
        const auto reply = Send(
            "POST",
            base_urls[static_cast<std::size_t>(i) % base_urls.size()] + "/deployments",
            orch::reliability::SmallCreateBody()
        );
        REQUIRE(reply.status == 201);
        ids.push_back(reply.body.at("uuid").get<std::string>());
    }
    return ids;
}

// Deployments whose workflow job `owner` holds under a live lease right now.
std::set<std::string> LeasedBy(const std::string& dsn, const std::string& owner) {
    pqxx::connection c(dsn);
    pqxx::read_transaction tx(c);
    std::set<std::string> out;
    for (const auto& row : tx.exec_params(
             "SELECT deployment_id::text FROM jobs WHERE workflow AND lease_owner = $1 "
             "AND lease_until > now()",
             owner
         )) {
        out.insert(row[0].as<std::string>());
    }
    return out;
}

void CheckAllAcknowledgedListed(
    const std::vector<std::string>& ids, const std::map<std::string, std::string>& statuses
) {
    for (const auto& id : ids) {
        INFO("acknowledged deployment " << id);
        CHECK(statuses.count(id) == 1);
    }
    CHECK(statuses.size() == ids.size());
}

}  // namespace

TEST_CASE("two replicas on one database deploy each of 500 deployments exactly once", "[e2e][reliability][replicas]") {
    orch::test::TestDatabase db;
    orch::reliability::TwoSites sites;
    const std::string config = sites.WriteConfig("5s");
    auto a = Replica(db.dsn(), config, "replica-a");
    auto b = Replica(db.dsn(), config, "replica-b");
    REQUIRE(orch::test::WaitForStatus(a->BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));
    REQUIRE(orch::test::WaitForStatus(b->BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));

    // Both replicas take work from the shared job table: seen through their leases, sampled
    // while the batch is being submitted.
    std::set<std::string> by_a, by_b;
    const auto ids = SubmitAlternately({a->BaseUrl(), b->BaseUrl()}, kFirstBatch, [&] {
        by_a.merge(LeasedBy(db.dsn(), "replica-a"));
        by_b.merge(LeasedBy(db.dsn(), "replica-b"));
    });
    CHECK_FALSE(by_a.empty());
    CHECK_FALSE(by_b.empty());
    const auto statuses = orch::reliability::WaitAllTerminal(a->BaseUrl(), std::chrono::seconds(120));
    CheckAllAcknowledgedListed(ids, statuses);
    orch::reliability::CheckDeployedExactlyOnce(sites, statuses);
}

TEST_CASE(
    "a replica killed mid-batch has its leased work finished by the other replica", "[e2e][reliability][replicas]"
) {
    orch::test::TestDatabase db;
    orch::reliability::TwoSites sites;
    const std::string config = sites.WriteConfig("2s");
    auto a = Replica(db.dsn(), config, "replica-a");
    auto b = Replica(db.dsn(), config, "replica-b");
    REQUIRE(orch::test::WaitForStatus(a->BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));
    REQUIRE(orch::test::WaitForStatus(b->BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));

    // Mid-way through the batch, A is killed at the first moment it holds leased work (polled
    // after each submission); the rest of the batch goes to B.
    std::vector<std::string> ids;
    std::set<std::string> orphaned;
    bool a_alive = true;
    for (int i = 0; i < kTakeoverBatch; ++i) {
        const bool to_a = a_alive && i % 2 == 0;
        ids.push_back(SubmitAlternately({to_a ? a->BaseUrl() : b->BaseUrl()}, 1).front());
        if (a_alive && i >= kTakeoverBatch / 4) {
            orphaned = LeasedBy(db.dsn(), "replica-a");
            if (!orphaned.empty()) {
                REQUIRE(a->process().Stop(SIGKILL, std::chrono::seconds(10)) == 128 + SIGKILL);
                a_alive = false;
            }
        }
    }
    REQUIRE_FALSE(a_alive);
    REQUIRE_FALSE(orphaned.empty());

    const auto statuses = orch::reliability::WaitAllTerminal(b->BaseUrl(), std::chrono::seconds(90));
    CheckAllAcknowledgedListed(ids, statuses);
    for (const auto& id : orphaned) {
        INFO("deployment " << id << " was leased by the killed replica");
        CHECK(statuses.at(id) == "CREATE_COMPLETE");
    }
    CHECK(LeasedBy(db.dsn(), "replica-a").empty());
    orch::reliability::CheckDeployedExactlyOnce(sites, statuses);
}
