// Crash test: the orchestrator is killed with SIGKILL at random moments while deployments are
// being submitted and carried out, and restarted on the same database each time. At the end
// every acknowledged deployment exists, every deployment is terminal, and each one exists on
// exactly one simulated site (none lost, none created twice).
#include "reliability_harness.hpp"
#include "test_support/process.hpp"
#include "test_support/test_env.hpp"

#include <catch2/catch.hpp>
#include <signal.h>

#include <atomic>
#include <mutex>
#include <random>
#include <thread>

namespace {

using orch::reliability::Reply;
using orch::reliability::Send;

constexpr int kDeployments = 50;
constexpr int kMinKills = 4;

// The current server's base URL, replaced by the killer after each restart.
class CurrentServer {
   public:
    void Set(std::string url) {
        const std::lock_guard lock(mutex_);
        url_ = std::move(url);
        ++generation_;
    }
    std::pair<std::string, int> Get() const {
        const std::lock_guard lock(mutex_);
        return {url_, generation_};
    }

   private:
    mutable std::mutex mutex_;
    std::string url_;
    int generation_ = 0;
};

// Posts until kDeployments were acknowledged with 201; a failed call (server killed under it) is
// retried on the next server. Unacknowledged calls may still have created a deployment: allowed.
// Answers other than 201, transport failure (0) and 503 (database not ready yet) are collected.
void Submit(
    const CurrentServer& server,
    std::vector<std::string>& acknowledged,
    std::vector<int>& unexpected,
    std::atomic<int>& acknowledged_count,
    std::atomic<bool>& done
) {
    for (int attempt = 0; attempt < 5000 && static_cast<int>(acknowledged.size()) < kDeployments; ++attempt) {
        const auto [url, generation] = server.Get();
        const Reply reply =
            Send("POST", url + "/deployments", orch::reliability::SmallCreateBody(), std::chrono::seconds(10));
        if (reply.status == 201) {
            acknowledged.push_back(reply.body.at("uuid").get<std::string>());
            ++acknowledged_count;
            continue;
        }
        if (reply.status != 0 && reply.status != 503) {
            unexpected.push_back(reply.status);
        }
        // Killed or not serving yet: wait for the restarted server (or a served answer).
        for (int i = 0; i < 200 && server.Get().second == generation && reply.status == 0; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(25));
        }
    }
    done = true;
}

}  // namespace

TEST_CASE(
    "kill -9 of the orchestrator at random moments loses no deployment and creates none twice",
    "[e2e][reliability][crash]"
) {
    orch::test::TestDatabase db;
    orch::reliability::TwoSites sites;
    const std::string config = sites.WriteConfig("2s");
    auto orch =
        std::make_unique<orch::test::OrchestratorProcess>(db.dsn(), std::map<std::string, std::string>{}, config);
    CurrentServer server;
    server.Set(orch->BaseUrl());
    std::vector<std::string> acknowledged;
    std::vector<int> unexpected;
    std::atomic<int> acknowledged_count{0};
    std::atomic<bool> submitted{false};
    std::thread submitter(
        Submit,
        std::cref(server),
        std::ref(acknowledged),
        std::ref(unexpected),
        std::ref(acknowledged_count),
        std::ref(submitted)
    );

    std::mt19937 random(std::random_device{}());
    // While submitting, a kill comes after a random number of further acknowledgements (so the
    // first one surely lands mid-submission); afterwards, after a random pause while the workflow runs.
    std::uniform_int_distribution<int> more_acks(3, 15);
    std::uniform_int_distribution<int> pause_ms(300, 1500);
    int kills = 0;
    int kills_while_submitting = 0;
    while (kills < kMinKills || !submitted) {
        const int target = acknowledged_count + more_acks(random);
        for (int i = 0; i < 2000 && !submitted && acknowledged_count < target; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));  // polls the submitter's progress
        }
        if (submitted) {
            std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms(random)));  // a random moment
        } else {
            ++kills_while_submitting;
        }
        REQUIRE(orch->process().Stop(SIGKILL, std::chrono::seconds(10)) == 128 + SIGKILL);
        ++kills;
        orch =
            std::make_unique<orch::test::OrchestratorProcess>(db.dsn(), std::map<std::string, std::string>{}, config);
        server.Set(orch->BaseUrl());
    }
    submitter.join();
    CHECK(unexpected == std::vector<int>{});
    REQUIRE(static_cast<int>(acknowledged.size()) == kDeployments);
    INFO("kills: " << kills << ", of which while submitting: " << kills_while_submitting);
    CHECK(kills_while_submitting >= 1);

    REQUIRE(orch::test::WaitForStatus(orch->BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));
    const auto statuses = orch::reliability::WaitAllTerminal(orch->BaseUrl(), std::chrono::seconds(90));
    for (const auto& id : acknowledged) {
        INFO("acknowledged deployment " << id);
        CHECK(statuses.count(id) == 1);
    }
    CHECK(statuses.size() >= acknowledged.size());
    for (const auto& [id, status] : statuses) {
        INFO("deployment " << id);
        CHECK(orch::reliability::IsTerminal(status));
    }
    orch::reliability::CheckDeployedExactlyOnce(sites, statuses);
}
