// The event stream with the real binary, real PostgreSQL and simulated Marathon sites: a
// deployment's stream shows each step in order through CREATE_COMPLETE, and a client that
// disconnects and reconnects with Last-Event-ID (to the other replica) gets exactly what it
// missed: the log is in the database, not in the process that ran the workflow.
#include "reliability_harness.hpp"
#include "test_support/process.hpp"
#include "test_support/sse_client.hpp"
#include "test_support/test_env.hpp"

#include <catch2/catch.hpp>

#include <functional>

namespace {

using orch::Json;
using orch::reliability::Send;
using orch::test::Has;
using orch::test::SseClient;
using orch::test::SseEvent;
using orch::test::Types;

std::unique_ptr<orch::test::OrchestratorProcess> Replica(
    const std::string& dsn, const std::string& config, const std::string& id
) {
    return std::make_unique<orch::test::OrchestratorProcess>(
        dsn, std::map<std::string, std::string>{{"ORCHESTRATOR_INSTANCE_ID", id}}, config
    );
}

}  // namespace

TEST_CASE("a Marathon deployment's event stream shows each step in order through CREATE_COMPLETE", "[e2e][events]") {
    orch::test::TestDatabase db;
    orch::reliability::TwoSites sites;
    auto orchestrator = Replica(db.dsn(), sites.WriteConfig(), "events-a");
    REQUIRE(orch::test::WaitForStatus(orchestrator->BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));
    const auto created = Send("POST", orchestrator->BaseUrl() + "/deployments", orch::reliability::SmallCreateBody());
    REQUIRE(created.status == 201);
    const std::string id = created.body.at("uuid").get<std::string>();

    SseClient stream(orchestrator->port(), "/deployments/" + id + "/events");
    const auto events = stream.ReadUntil(
        [](const auto& got) { return Has(got, "completed") || Has(got, "failed"); }, std::chrono::seconds(60)
    );
    INFO(stream.head());
    CHECK(stream.head().find("Content-Type: text/event-stream") != std::string::npos);
    REQUIRE(Has(events, "completed"));
    // Each step once, in order (site messages and polling may come between them).
    const std::vector<std::string> steps{"placement", "attempt_started", "attempt_ended", "completed"};
    std::size_t next = 0;
    for (const auto& type : Types(events)) {
        if (next < steps.size() && type == steps[next]) {
            ++next;
        }
    }
    CHECK(next == steps.size());
    CHECK(events.front().type == "progress");
    CHECK(events.front().data["data"]["statusReason"] == "Validated; placing");
    for (std::size_t i = 1; i < events.size(); ++i) {
        CHECK(events[i - 1].id < events[i].id);
        CHECK(events[i].data["deploymentId"] == id);
    }
    CHECK(events.back().data["data"]["status"] == "CREATE_COMPLETE");
}

TEST_CASE(
    "a client that reconnects with Last-Event-ID to the other replica gets exactly the events it missed",
    "[e2e][events][replicas]"
) {
    orch::test::TestDatabase db;
    orch::reliability::TwoSites sites;
    const std::string config = sites.WriteConfig();
    auto a = Replica(db.dsn(), config, "events-a");
    auto b = Replica(db.dsn(), config, "events-b");
    REQUIRE(orch::test::WaitForStatus(a->BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));
    REQUIRE(orch::test::WaitForStatus(b->BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));
    const auto created = Send("POST", a->BaseUrl() + "/deployments", orch::reliability::SmallCreateBody());
    REQUIRE(created.status == 201);
    const std::string id = created.body.at("uuid").get<std::string>();

    // On A, read the first two events, then go away while the workflow goes on.
    std::vector<SseEvent> before;
    {
        SseClient first(a->port(), "/deployments/" + id + "/events");
        before = first.ReadUntil([](const auto& got) { return got.size() >= 2; }, std::chrono::seconds(30));
    }
    REQUIRE(before.size() >= 2);
    // The simulator is fast: the first read may already hold the whole history. The client
    // "saw" only the first two (what it had processed when it went away).
    before.resize(2);
    const auto statuses = orch::reliability::WaitAllTerminal(a->BaseUrl(), std::chrono::seconds(60));
    REQUIRE(statuses.at(id) == "CREATE_COMPLETE");

    // The whole log of the deployment, as a fresh client on B sees it.
    SseClient whole(b->port(), "/deployments/" + id + "/events");
    const auto all = whole.ReadUntil([](const auto& got) { return Has(got, "completed"); }, std::chrono::seconds(30));
    REQUIRE(Has(all, "completed"));

    // Resuming on B after the last event seen on A: exactly the rest, none twice, none missing.
    SseClient resumed(b->port(), "/deployments/" + id + "/events", std::to_string(before.back().id));
    const auto rest =
        resumed.ReadUntil([](const auto& got) { return Has(got, "completed"); }, std::chrono::seconds(30));
    std::vector<std::int64_t> seen;
    for (const auto& e : before) {
        seen.push_back(e.id);
    }
    for (const auto& e : rest) {
        seen.push_back(e.id);
    }
    std::vector<std::int64_t> expected;
    for (const auto& e : all) {
        expected.push_back(e.id);
    }
    CHECK(rest.size() >= 2);  // at least the attempt's end and the completion were missed
    CHECK(seen == expected);

    // GET /events (every deployment the caller may see) resumes the same way.
    SseClient everything(b->port(), "/events?lastEventId=" + std::to_string(before.back().id));
    const auto rest_all =
        everything.ReadUntil([](const auto& got) { return Has(got, "completed"); }, std::chrono::seconds(30));
    CHECK(Types(rest_all) == Types(rest));
}
