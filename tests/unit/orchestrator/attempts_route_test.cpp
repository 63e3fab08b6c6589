// GET /deployments/{id}/attempts with auth on: the real handler and router, an authenticator
// returning a chosen principal, the in-memory store seeded with one deployment's rows. Visible exactly as GET
// /deployments/{id} is.
#include "test_support/fakes.hpp"
#include "test_support/handler_harness.hpp"
#include "test_support/in_memory_stores.hpp"

#include <orchestrator/api/deployment_routes.hpp>
#include <orchestrator/api/placement_routes.hpp>

#include <catch2/catch.hpp>

namespace {

using orch::Json;

constexpr const char* kId = "11ed8ab3-6a40-968a-82b7-62f0862dbe47";

// One live deployment of bob's, tried on two sites, as rows of the in-memory database.
void SeedTwoAttempts(orch::test::InMemoryDatabase& db) {
    auto& row = db.rows()[kId];
    row.deployment.id = kId;
    row.deployment.status = orch::domain::Status::kCreateComplete;
    row.deployment.owner = orch::domain::Owner{"https://iam.example/", "bob"};
    orch::workflow::Attempt a;
    a.seq = 0;
    a.provider_id = "SITE-A";
    a.provider_name = "Site A";
    a.service_id = "svc-a";
    a.started_at = std::chrono::system_clock::time_point(std::chrono::milliseconds(1'795'000'000'123));
    a.outcome = orch::domain::AttemptOutcome::kFailed;
    a.reason = "Marathon SITE-A failed with HTTP 503";
    row.attempts.push_back(a);
    row.finished_at[0] = a.started_at + std::chrono::seconds(3);
    a.seq = 1;
    a.provider_id = "SITE-B";
    a.service_id = "svc-b";
    a.started_at = row.finished_at[0];
    a.outcome = orch::domain::AttemptOutcome::kRunning;
    a.reason.clear();
    row.attempts.push_back(a);
}

using orch::test::HandlerHarness;

// The shared handler harness (deployment, resource and placement routes) with bob's deployment.
struct Harness : HandlerHarness {
    Harness() { SeedTwoAttempts(stores.db); }
    orch::server::Response Call(const std::string& path) { return HandlerHarness::Call("GET", path); }
};

}  // namespace

TEST_CASE("attempts list every site tried, in order, with outcome and reason", "[deployments][attempts]") {
    Harness h;
    h.authenticator.principal = HandlerHarness::User("https://iam.example/", "bob");
    const auto res = h.Call(std::string("/deployments/") + kId + "/attempts");
    REQUIRE(res.status == 200);
    const Json attempts = Json::parse(res.body)["attempts"];
    REQUIRE(attempts.size() == 2);
    CHECK(
        attempts[0] ==
        Json{
            {"seq", 0},
            {"providerId", "SITE-A"},
            {"providerName", "Site A"},
            {"serviceId", "svc-a"},
            {"startedAt", "2026-11-18T11:06:40.123Z"},
            {"finishedAt", "2026-11-18T11:06:43.123Z"},
            {"outcome", "FAILED"},
            {"reason", "Marathon SITE-A failed with HTTP 503"}}
    );
    // Still running: no finish time, no reason.
    CHECK(attempts[1]["providerId"] == "SITE-B");
    CHECK(attempts[1]["outcome"] == "RUNNING");
    CHECK_FALSE(attempts[1].contains("finishedAt"));
    CHECK_FALSE(attempts[1].contains("reason"));
}

TEST_CASE("attempts are visible exactly when the deployment is", "[deployments][attempts][auth]") {
    Harness h;
    const std::string path = std::string("/deployments/") + kId;
    for (const auto& [issuer, subject] : std::vector<std::pair<std::string, std::string>>{
             {"https://iam.example/", "bob"}, {"https://other.example/", "bob"}, {"https://iam.example/", "carol"}}) {
        INFO(issuer << " " << subject);
        h.authenticator.principal = HandlerHarness::User(issuer, subject);
        const auto deployment = h.Call(path);
        const auto attempts = h.Call(path + "/attempts");
        CHECK(attempts.status == deployment.status);
        if (deployment.status == 404) {
            CHECK(attempts.body == deployment.body);  // the same "doesn't exist", nothing leaked
        }
    }
    h.authenticator.principal = HandlerHarness::User("https://other.example/", "bob");
    CHECK(h.Call(path + "/attempts").status == 404);  // another issuer's deployment
    h.stores.db.rows().at(kId).deployment.status = orch::domain::Status::kDeleteComplete;
    h.authenticator.principal = HandlerHarness::User("https://iam.example/", "bob");
    CHECK(h.Call(path + "/attempts").status == 404);  // deleted: gone for its owner too
}

TEST_CASE("extrainfo keeps the VM infos first and ends with the attempts", "[deployments][attempts][extrainfo]") {
    Harness h;
    h.authenticator.principal = HandlerHarness::User("https://iam.example/", "bob");
    orch::domain::Resource vm;
    vm.id = "r1";
    vm.deployment_id = kId;
    vm.metadata["VirtualMachineInfo"] = R"({"vmProperties":[{"class":"system"}]})";
    h.stores.db.rows().at(kId).resources.push_back(vm);
    const std::string path = std::string("/deployments/") + kId;
    const auto res = h.Call(path + "/extrainfo");
    REQUIRE(res.status == 200);
    const Json info = Json::parse(res.body);
    REQUIRE(info.is_array());
    REQUIRE(info.size() == 2);
    CHECK(info[0] == Json::parse(R"({"vmProperties":[{"class":"system"}]})"));  // element 0 as before
    // The same attempts, in the same form, as GET /attempts shows.
    CHECK(info[1] == Json::parse(h.Call(path + "/attempts").body));

    // Never tried anywhere: the contract's [] (not an attempts object with an empty list).
    h.stores.db.rows().at(kId).attempts.clear();
    h.stores.db.rows().at(kId).resources.clear();
    CHECK(h.Call(path + "/extrainfo").body == "[]");
}
