// GET /deployments/{id}/diagnostics: the real handler and router over the in-memory store. What a
// support ticket gets: redacted inputs and template, attempts, history, versions, visible as GET
// is, and large parts cut with a marker.
#include "test_support/fakes.hpp"
#include "test_support/handler_harness.hpp"
#include "test_support/in_memory_stores.hpp"

#include <orchestrator/api/deployment_routes.hpp>
#include <orchestrator/api/diagnostics_routes.hpp>
#include <orchestrator/api/event_stream.hpp>

#include <catch2/catch.hpp>

#include <mutex>

namespace {

using orch::Json;

constexpr const char* kId = "11ed8ab3-6a40-968a-82b7-62f0862dbe48";

constexpr const char* kTemplate = R"(tosca_definitions_version: tosca_simple_yaml_1_0
topology_template:
  inputs:
    db_password: {type: string, default: hunter2}
    num_gpus: {type: integer, default: 1}
  node_templates: {}
)";

// One failed deployment of bob's, tried on one site, as rows of the in-memory database.
orch::test::InMemoryDatabase::Row& SeedOneDeployment(orch::test::InMemoryDatabase& db) {
    auto& row = db.rows()[kId];
    auto& d = row.deployment;
    d.id = kId;
    d.status = orch::domain::Status::kCreateFailed;
    d.status_reason = "CUDA error: no CUDA-capable device is detected";
    d.owner = orch::domain::Owner{"https://iam.example/", "bob"};
    d.kind = orch::tosca::DeploymentKind::kMarathon;
    d.template_text = kTemplate;
    d.parameters = {{"db_password", "s3cret"}, {"num_gpus", 2}};
    d.created_at = std::chrono::system_clock::time_point(std::chrono::milliseconds(1'795'000'000'000));
    d.updated_at = d.created_at + std::chrono::seconds(9);
    row.decision = Json{{"selected", "SITE-B"}};
    orch::workflow::Attempt a;
    a.seq = 0;
    a.provider_id = "SITE-A";
    a.started_at = d.created_at + std::chrono::seconds(1);
    a.outcome = orch::domain::AttemptOutcome::kFailed;
    a.reason = "CUDA error: no CUDA-capable device is detected";
    row.attempts.push_back(a);
    row.finished_at[0] = a.started_at + std::chrono::seconds(3);
    return row;
}

using orch::test::HandlerHarness;

// The shared handler harness with bob's failed deployment and the diagnostics route.
struct Harness : HandlerHarness {
    orch::test::InMemoryDatabase::Row& row = SeedOneDeployment(stores.db);

    Harness() {
        orch::api::RegisterDiagnosticsRoutes(router, ctx);
        authenticator.principal = HandlerHarness::User("https://iam.example/", "bob");
    }
    orch::server::Response Call(const std::string& path) { return HandlerHarness::Call("GET", path); }
};

const std::string kPath = std::string("/deployments/") + kId + "/diagnostics";

}  // namespace

TEST_CASE("diagnostics: one document with every part, secrets redacted", "[deployments][diagnostics]") {
    Harness h;
    const auto res = h.Call(kPath);
    REQUIRE(res.status == 200);
    const Json doc = Json::parse(res.body);
    CHECK(res.body.find("hunter2") == std::string::npos);  // the template's default
    CHECK(res.body.find("s3cret") == std::string::npos);   // the user's parameter
    CHECK(doc["inputs"] == Json{{"db_password", "<redacted>"}, {"num_gpus", 2}});
    CHECK(doc["template"].get<std::string>().find("default: \"<redacted>\"") != std::string::npos);
    CHECK(doc["deployment"]["uuid"] == kId);
    CHECK(doc["placement"] == h.row.decision);
    REQUIRE(doc["attempts"].size() == 1);
    CHECK(doc["attempts"][0]["reason"] == "CUDA error: no CUDA-capable device is detected");
    CHECK(doc["log"] == "CUDA error: no CUDA-capable device is detected");  // no log: the reason
    std::vector<std::string> events;
    for (const auto& e : doc["history"]) {
        events.push_back(e["event"]);
    }
    CHECK(events == std::vector<std::string>{"CREATED", "ATTEMPT_STARTED", "ATTEMPT_FAILED", "STATUS"});
    CHECK(doc["history"].back()["status"] == "CREATE_FAILED");
    CHECK_FALSE(doc["versions"]["orchestrator"]["version"].get<std::string>().empty());
    CHECK(doc["versions"]["connectorKind"] == "MARATHON");
    CHECK(doc["versions"]["sites"][0]["providerId"] == "SITE-A");
    CHECK(doc["truncated"] == Json::array());
}

TEST_CASE("diagnostics are visible exactly when the deployment is", "[deployments][diagnostics][auth]") {
    Harness h;
    const std::string path = std::string("/deployments/") + kId;
    for (const auto& [issuer, subject] : std::vector<std::pair<std::string, std::string>>{
             {"https://iam.example/", "bob"}, {"https://other.example/", "bob"}, {"https://iam.example/", "carol"}}) {
        INFO(issuer << " " << subject);
        h.authenticator.principal = HandlerHarness::User(issuer, subject);
        const auto deployment = h.Call(path);
        const auto diagnostics = h.Call(kPath);
        CHECK(diagnostics.status == deployment.status);
        if (deployment.status == 404) {
            CHECK(diagnostics.body == deployment.body);
        }
    }
    h.authenticator.principal = HandlerHarness::User("https://other.example/", "bob");
    CHECK(h.Call(kPath).status == 404);
}

TEST_CASE("diagnostics cut large parts with a marker and say which", "[deployments][diagnostics]") {
    Harness h;
    const orch::api::DiagnosticsLimits limits;
    h.row.log = "first line\n" + std::string(limits.log_bytes, 'x') + "\nlast line";
    h.row.attempts[0].reason = std::string(limits.reason_bytes + 10, 'r');
    h.row.decision = Json{{"sites", std::string(limits.placement_bytes, 'p')}};
    const auto res = h.Call(kPath);
    REQUIRE(res.status == 200);
    const Json doc = Json::parse(res.body);
    const std::string log = doc["log"];
    CHECK(log.rfind("[truncated: the first ", 0) == 0);
    CHECK(log.find("first line") == std::string::npos);
    CHECK(log.size() < limits.log_bytes + 100);
    CHECK(log.ends_with("last line"));  // the end (how it ended) is what is kept
    CHECK(doc["placement"].is_string());
    CHECK(doc["placement"].get<std::string>().find("[truncated: ") != std::string::npos);
    CHECK(doc["attempts"][0]["reason"].get<std::string>().find("[truncated: 10 of ") != std::string::npos);
    std::vector<std::string> parts;
    for (const auto& t : doc["truncated"]) {
        parts.push_back(t["part"]);
        CHECK(t["originalBytes"] > t["keptBytes"]);
    }
    std::sort(parts.begin(), parts.end());
    CHECK(parts == std::vector<std::string>{"attempts[0].reason", "log", "placement"});
    CHECK(res.body.size() < limits.log_bytes + limits.placement_bytes + limits.reason_bytes + 8192);
}

namespace {

// bob's deployment with an event log the diagnostics read its history from.
struct HarnessWithLog : Harness {
    orch::api::EventFeed feed{stores.events, {}, clock};

    HarnessWithLog() { ctx.events = &feed; }

    void Append(orch::domain::EventType type, Json data) {
        orch::domain::Event e;
        e.type = type;
        e.time = clock.now();
        e.data = std::move(data);
        const std::lock_guard lock(stores.db.mutex());
        stores.db.AppendEvents(kId, {e});
    }
};

}  // namespace

TEST_CASE(
    "diagnostics read the history from the event log, in order, with each event's data", "[deployments][diagnostics]"
) {
    HarnessWithLog h;
    using orch::domain::EventType;
    h.Append(EventType::kProgress, Json{{"statusReason", "Validated; placing"}});
    h.Append(EventType::kAttemptStarted, Json{{"seq", 1}, {"of", 1}, {"site", "SITE-A"}});
    h.Append(EventType::kSiteMessage, Json{{"site", "SITE-A"}, {"message", "CUDA error: no CUDA-capable device"}});
    h.Append(EventType::kFailed, Json{{"status", "CREATE_FAILED"}, {"reason", "CUDA error"}});
    const auto res = h.Call(kPath);
    REQUIRE(res.status == 200);
    const Json doc = Json::parse(res.body);
    CHECK(doc["historySource"] == "events");
    std::vector<std::string> events;
    for (const auto& e : doc["history"]) {
        events.push_back(e["event"]);
    }
    CHECK(
        events == std::vector<std::string>{"CREATED", "progress", "attempt_started", "site_message", "failed", "STATUS"}
    );
    CHECK(doc["history"][3]["data"]["message"] == "CUDA error: no CUDA-capable device");
    CHECK(doc["history"][1]["id"] < doc["history"][2]["id"]);
    CHECK(doc["truncated"] == Json::array());
}

TEST_CASE(
    "diagnostics keep at most history_events of a long event log and say where it stopped", "[deployments][diagnostics]"
) {
    HarnessWithLog h;
    const orch::api::DiagnosticsLimits limits;
    for (std::size_t i = 0; i < limits.history_events + 250; ++i) {
        h.Append(
            orch::domain::EventType::kSiteMessage, Json{{"site", "SITE-A"}, {"message", "poll " + std::to_string(i)}}
        );
    }
    const auto res = h.Call(kPath);
    REQUIRE(res.status == 200);
    const Json doc = Json::parse(res.body);
    CHECK(doc["history"].size() == limits.history_events + 2);  // CREATED ... STATUS
    REQUIRE(doc["truncated"].size() == 1);
    CHECK(doc["truncated"][0]["part"] == "history");
    CHECK(doc["truncated"][0]["keptEvents"] == limits.history_events);
    CHECK(doc["truncated"][0]["nextEventId"] == doc["history"][limits.history_events]["id"].get<std::int64_t>() + 1);
}

TEST_CASE(
    "diagnostics name each site's version as its attempt recorded it, unknown otherwise", "[deployments][diagnostics]"
) {
    HarnessWithLog h;
    const auto res = h.Call(kPath);
    REQUIRE(res.status == 200);
    CHECK(Json::parse(res.body)["versions"]["sites"][0]["version"] == "unknown");  // nothing recorded
    h.Append(
        orch::domain::EventType::kAttemptStarted,
        Json{{"seq", 1}, {"of", 1}, {"site", "SITE-A"}, {"siteVersion", "Marathon 1.7.236"}}
    );
    const Json doc = Json::parse(h.Call(kPath).body);
    CHECK(doc["versions"]["sites"][0]["providerId"] == "SITE-A");
    CHECK(doc["versions"]["sites"][0]["version"] == "Marathon 1.7.236");
}
