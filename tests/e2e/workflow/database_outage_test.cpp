// Database outage: the orchestrator reaches PostgreSQL through a TCP proxy the test cuts. While
// the link is down the deployment API answers 503 with the contract error body; it recovers by
// itself when the link returns, and every deployment acknowledged with 201 (before the cut or
// racing with it) is still there and gets deployed.
#include "reliability_harness.hpp"
#include "test_support/process.hpp"
#include "test_support/tcp_proxy.hpp"
#include "test_support/test_env.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

namespace {

using orch::reliability::Reply;
using orch::reliability::Send;

int PortOf(const std::string& dsn) {
    const auto colon = dsn.rfind(':');
    return std::stoi(dsn.substr(colon + 1, dsn.find('/', colon) - colon - 1));
}

std::string ThroughProxy(std::string dsn, int proxy_port) {
    const auto colon = dsn.rfind(':');
    dsn.replace(colon + 1, dsn.find('/', colon) - colon - 1, std::to_string(proxy_port));
    return dsn;
}

void CheckUnavailable(const Reply& reply) {
    CHECK(reply.status == 503);
    REQUIRE(reply.body.is_object());
    CHECK(reply.body["code"] == 503);
    CHECK(reply.body["title"] == "Service Unavailable");
    CHECK(reply.body["message"].is_string());
}

// Polls until `method url` answers `status` (bounded); returns the last reply.
Reply WaitForAnswer(const std::string& method, const std::string& url, const std::string& body, int status) {
    Reply reply;
    for (int i = 0; i < 300; ++i) {
        reply = Send(method, url, body, std::chrono::seconds(15));
        if (reply.status == status) {
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return reply;
}

}  // namespace

TEST_CASE(
    "while PostgreSQL is unreachable the deployment API answers 503 and recovers by itself",
    "[e2e][reliability][outage]"
) {
    orch::test::TestDatabase db;
    orch::test::TcpProxy proxy(PortOf(db.dsn()));
    orch::reliability::TwoSites sites;
    orch::test::OrchestratorProcess orch(ThroughProxy(db.dsn(), proxy.port()), {}, sites.WriteConfig("2s"));
    const std::string base = orch.BaseUrl();
    REQUIRE(orch::test::WaitForStatus(base + "/readyz", 200, std::chrono::seconds(20)));

    std::vector<std::string> acknowledged;
    for (int i = 0; i < 5; ++i) {
        const auto reply = Send("POST", base + "/deployments", orch::reliability::SmallCreateBody());
        REQUIRE(reply.status == 201);
        acknowledged.push_back(reply.body["uuid"]);
    }

    // Creates keep coming while the link is cut under them: each either answers 201 (and then
    // must survive) or 503, never anything else.
    std::atomic<bool> stop{false};
    std::atomic<int> racing_count{0};
    std::vector<std::string> racing_acknowledged;
    std::vector<int> racing_other;
    std::thread racer([&] {
        for (int i = 0; i < 2000 && !stop; ++i) {
            const auto reply = Send("POST", base + "/deployments", orch::reliability::SmallCreateBody());
            if (reply.status == 201) {
                racing_acknowledged.push_back(reply.body["uuid"]);
            } else if (reply.status != 503) {
                racing_other.push_back(reply.status);
            }
            ++racing_count;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));  // pacing, not synchronisation
        }
    });
    while (racing_count < 3) {  // creates are flowing: cut the link under them
        std::this_thread::yield();
    }
    proxy.SetEnabled(false);

    const Reply first = WaitForAnswer("GET", base + "/deployments", "", 503);
    CheckUnavailable(first);
    // Once noticed, every deployment call answers 503 with the error body, and promptly.
    for (int round = 0; round < 3; ++round) {
        const auto started = std::chrono::steady_clock::now();
        CheckUnavailable(Send("GET", base + "/deployments"));
        CheckUnavailable(Send("POST", base + "/deployments", orch::reliability::SmallCreateBody()));
        CheckUnavailable(Send("GET", base + "/deployments/" + acknowledged.front()));
        CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(15));
    }
    CheckUnavailable(Send("GET", base + "/readyz"));
    CHECK(Send("GET", base + "/healthz").status == 200);

    proxy.SetEnabled(true);
    CHECK(WaitForAnswer("GET", base + "/deployments", "", 200).status == 200);
    stop = true;
    racer.join();
    CHECK(racing_other.empty());
    CHECK(WaitForAnswer("POST", base + "/deployments", orch::reliability::SmallCreateBody(), 201).status == 201);

    const auto statuses = orch::reliability::WaitAllTerminal(base, std::chrono::seconds(60));
    acknowledged.insert(acknowledged.end(), racing_acknowledged.begin(), racing_acknowledged.end());
    for (const auto& id : acknowledged) {
        INFO("acknowledged deployment " << id);
        CHECK(statuses.count(id) == 1);
    }
    orch::reliability::CheckDeployedExactlyOnce(sites, statuses);
}
