// Leases with the real binary, real PostgreSQL and simulated Marathon sites (docs/lifecycle.md
// "Leases"): a lease warns (event) and then deletes its deployment within 60 s of its end, or
// stops it with action stop; and a kill -9 of the orchestrator before the end does not lose it.
// Short configured durations (a 6 s warning, a 1 s sweep) keep each case well under a minute.
#include "reliability_harness.hpp"
#include "test_support/process.hpp"
#include "test_support/sse_client.hpp"
#include "test_support/test_env.hpp"

#include <catch2/catch.hpp>
#include <signal.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <thread>

namespace {

using orch::Json;
using orch::reliability::Reply;
using orch::reliability::Send;
using orch::test::Has;
using orch::test::SseClient;
using std::chrono::seconds;
using Wall = std::chrono::system_clock;

// expiresAt as the API shows it: "2030-01-31T12:00:00Z" (this binary links no orchestrator code).
std::string IsoUtc(Wall::time_point t) {
    const auto days = std::chrono::floor<std::chrono::days>(t);
    const std::chrono::year_month_day ymd(days);
    const std::chrono::hh_mm_ss hms(std::chrono::floor<seconds>(t - days));
    std::array<char, 32> text{};
    const int n = std::snprintf(
        text.data(),
        text.size(),
        "%04d-%02u-%02uT%02d:%02d:%02dZ",
        static_cast<int>(ymd.year()),
        static_cast<unsigned>(ymd.month()),
        static_cast<unsigned>(ymd.day()),
        static_cast<int>(hms.hours().count()),
        static_cast<int>(hms.minutes().count()),
        static_cast<int>(hms.seconds().count())
    );
    return std::string(text.data(), static_cast<std::size_t>(n));
}

std::string LeaseConfig(const orch::reliability::TwoSites& sites, const std::string& action) {
    const std::string path = sites.WriteConfig("2s");
    std::ofstream(path, std::ios::app) << "leases:\n  warnings: 6s\n  sweep_interval: 1s\n  action: " << action << "\n";
    return path;
}

std::string CreateLeased(const std::string& base_url, Wall::time_point expires_at) {
    REQUIRE(orch::test::WaitForStatus(base_url + "/readyz", 200, seconds(20)));
    Json body = Json::parse(orch::reliability::SmallCreateBody());
    body["expiresAt"] = IsoUtc(expires_at);
    const Reply created = Send("POST", base_url + "/deployments", body.dump());
    REQUIRE(created.status == 201);
    CHECK(created.body.value("expiresAt", "") == IsoUtc(expires_at));
    return created.body.at("uuid").get<std::string>();
}

// Polls GET until `done` holds for the reply or the deadline passes; returns the last reply.
Reply PollUntil(const std::string& url, const std::function<bool(const Reply&)>& done, Wall::time_point deadline) {
    Reply last = Send("GET", url);
    while (!done(last) && Wall::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
        last = Send("GET", url);
    }
    return last;
}

bool Gone(const Reply& r) {
    return r.status == 404 || (r.status == 200 && r.body.value("status", "") == "DELETE_COMPLETE");
}

std::size_t GroupsOnSites(orch::reliability::TwoSites& sites) {
    std::size_t n = 0;
    for (const auto& [site, groups] : sites.GroupsBySite()) {
        n += groups.size();
    }
    return n;
}

}  // namespace

TEST_CASE("a lease warns, then deletes its deployment within 60 s of its end", "[e2e][reliability][leases]") {
    orch::test::TestDatabase db;
    orch::reliability::TwoSites sites;
    orch::test::OrchestratorProcess orch(db.dsn(), {}, LeaseConfig(sites, "delete"));
    const auto expires_at = std::chrono::floor<seconds>(Wall::now()) + seconds(15);
    const std::string id = CreateLeased(orch.BaseUrl(), expires_at);
    const std::string url = orch.BaseUrl() + "/deployments/" + id;
    REQUIRE(
        PollUntil(
            url, [](const Reply& r) { return r.body.value("status", "") == "CREATE_COMPLETE"; }, expires_at
        )
            .body.value("status", "") == "CREATE_COMPLETE"
    );
    CHECK(GroupsOnSites(sites) == 1);

    SseClient stream(orch.port(), "/deployments/" + id + "/events");
    const auto events = stream.ReadUntil([](const auto& got) { return Has(got, "lease_expired"); }, seconds(60));
    REQUIRE(Has(events, "lease_warning"));
    REQUIRE(Has(events, "lease_expired"));
    std::size_t warning = events.size();
    std::size_t expired = events.size();
    for (std::size_t i = 0; i < events.size(); ++i) {
        warning = events[i].type == "lease_warning" ? std::min(warning, i) : warning;
        expired = events[i].type == "lease_expired" ? std::min(expired, i) : expired;
    }
    CHECK(warning < expired);  // the warning came first
    CHECK(events[warning].data["data"].value("expiresAt", "") == IsoUtc(expires_at));
    CHECK(events[expired].data["data"].value("action", "") == "delete");

    const auto last = PollUntil(url, Gone, expires_at + seconds(60));
    CHECK(Gone(last));
    CHECK(Wall::now() < expires_at + seconds(60));
    CHECK(GroupsOnSites(sites) == 0);  // removed from its site, not only from the API
}

TEST_CASE("a lease with action stop stops its deployment's app within 60 s of its end", "[e2e][reliability][leases]") {
    orch::test::TestDatabase db;
    orch::reliability::TwoSites sites;
    orch::test::OrchestratorProcess orch(db.dsn(), {}, LeaseConfig(sites, "stop"));
    const auto expires_at = std::chrono::floor<seconds>(Wall::now()) + seconds(12);
    const std::string id = CreateLeased(orch.BaseUrl(), expires_at);
    const std::string url = orch.BaseUrl() + "/deployments/" + id;
    REQUIRE(
        PollUntil(
            url, [](const Reply& r) { return r.body.value("status", "") == "CREATE_COMPLETE"; }, expires_at
        )
            .body.value("status", "") == "CREATE_COMPLETE"
    );

    // The app is what Marathon's actions stop; the runtime node beside it is not acted on.
    const auto stopped = [](const Reply& r) {
        if (r.status != 200 || !r.body.contains("content")) {
            return false;
        }
        int apps = 0;
        for (const auto& resource : r.body["content"]) {
            if (resource.value("toscaNodeType", "") != "tosca.nodes.indigo.Container.Application.Docker.Marathon") {
                continue;
            }
            ++apps;
            if (resource.value("state", "") != "STOPPED") {
                return false;
            }
        }
        return apps > 0;
    };
    const auto resources = PollUntil(url + "/resources", stopped, expires_at + seconds(60));
    INFO(resources.body.dump());
    CHECK(stopped(resources));
    CHECK(Wall::now() < expires_at + seconds(60));
    const Reply deployment = Send("GET", url);
    CHECK(deployment.body.value("status", "") == "CREATE_COMPLETE");  // stopped, not deleted
    CHECK(GroupsOnSites(sites) == 1);
    SseClient stream(orch.port(), "/deployments/" + id + "/events");
    const auto events = stream.ReadUntil([](const auto& got) { return Has(got, "lease_expired"); }, seconds(10));
    REQUIRE(Has(events, "lease_expired"));
    CHECK(Has(events, "lease_warning"));
}

TEST_CASE(
    "a lease still ends its deployment after a kill -9 of the orchestrator before the end", "[e2e][reliability][leases]"
) {
    orch::test::TestDatabase db;
    orch::reliability::TwoSites sites;
    const std::string config = LeaseConfig(sites, "delete");
    auto orch =
        std::make_unique<orch::test::OrchestratorProcess>(db.dsn(), std::map<std::string, std::string>{}, config);
    const auto expires_at = std::chrono::floor<seconds>(Wall::now()) + seconds(12);
    const std::string id = CreateLeased(orch->BaseUrl(), expires_at);
    REQUIRE(
        PollUntil(
            orch->BaseUrl() + "/deployments/" + id,
            [](const Reply& r) { return r.body.value("status", "") == "CREATE_COMPLETE"; },
            expires_at
        )
            .body.value("status", "") == "CREATE_COMPLETE"
    );
    REQUIRE(orch->process().Stop(SIGKILL, seconds(10)) == 128 + SIGKILL);
    orch.reset();
    // Down until the lease has ended: nothing in any process remembers it.
    std::this_thread::sleep_until(expires_at + seconds(2));
    orch = std::make_unique<orch::test::OrchestratorProcess>(db.dsn(), std::map<std::string, std::string>{}, config);
    REQUIRE(orch::test::WaitForStatus(orch->BaseUrl() + "/readyz", 200, seconds(20)));
    const auto last = PollUntil(orch->BaseUrl() + "/deployments/" + id, Gone, expires_at + seconds(60));
    CHECK(Gone(last));
    CHECK(Wall::now() < expires_at + seconds(60));
    CHECK(GroupsOnSites(sites) == 0);
}
