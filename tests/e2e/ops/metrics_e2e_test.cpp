// GET /metrics from the real binary: names, labels, and values that move with real requests.
#include "ops_env.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>
#include <thread>

namespace {

using orch::Json;
using orch::test::ops::OpsApi;

// The value of the sample line "series value"; NaN when the series is absent.
double Sample(const std::string& text, const std::string& series) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind(series + ' ', 0) == 0) {
            return std::stod(line.substr(series.size() + 1));
        }
    }
    return std::nan("");
}

// Sum of every sample whose series starts with `prefix` (e.g. a family with any labels).
double SumOf(const std::string& text, const std::string& prefix) {
    std::istringstream in(text);
    std::string line;
    double sum = 0;
    while (std::getline(in, line)) {
        if (line.rfind(prefix, 0) == 0) {
            sum += std::stod(line.substr(line.rfind(' ') + 1));
        }
    }
    return sum;
}

std::string Scrape(OpsApi& api) {
    const auto res = api.Call("GET", "/metrics", "", {});
    REQUIRE(res.status == 200);
    CHECK(res.Header("Content-Type").rfind("text/plain; version=0.0.4", 0) == 0);
    return res.body;
}

}  // namespace

TEST_CASE("GET /metrics exposes request, placement, workflow and database metrics that move", "[e2e][metrics]") {
    OpsApi api;
    const std::string list_series = R"(orch_http_requests_total{route="/deployments",method="GET",status="200"})";
    const auto before = Scrape(api);
    const double lists_before = std::isnan(Sample(before, list_series)) ? 0 : Sample(before, list_series);
    for (int i = 0; i < 3; ++i) {
        CHECK(api.Call("GET", "/deployments").status == 200);
    }
    const auto created = api.Create();
    REQUIRE(created.status == 201);
    const std::string id = Json::parse(created.body)["uuid"];
    CHECK(api.Call("GET", "/deployments/" + id).status == 200);
    CHECK(api.Call("GET", "/no/such/path/" + id).status == 404);

    const auto after = Scrape(api);
    CHECK(Sample(after, list_series) == lists_before + 3);
    CHECK(Sample(after, R"(orch_http_requests_total{route="/deployments",method="POST",status="201"})") == 1);
    CHECK(Sample(after, R"(orch_http_requests_total{route="/deployments/{id}",method="GET",status="200"})") == 1);
    CHECK(Sample(after, R"(orch_http_requests_total{route="unmatched",method="GET",status="404"})") >= 1);
    // Labels carry route patterns, never raw paths: the deployment id appears nowhere.
    CHECK(after.find(id) == std::string::npos);
    CHECK(
        Sample(after, R"(orch_http_request_duration_seconds_count{route="/deployments",method="GET"})") ==
        Sample(after, list_series)
    );
    CHECK(after.find("# TYPE orch_http_request_duration_seconds histogram") != std::string::npos);
    CHECK(Sample(after, R"(orch_db_pool_connections{state="size"})") > 0);

    // The workflow places the deployment (no site fits) and fails it; the store counters follow
    // within the metrics cache's TTL.
    std::string text;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
        text = Scrape(api);
        if (Sample(text, R"(orch_deployments{status="CREATE_FAILED"})") == 1) {
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    CHECK(Sample(text, R"(orch_deployments{status="CREATE_FAILED"})") == 1);
    CHECK(Sample(text, R"(orch_placement_decisions_total{outcome="no_candidate"})") >= 1);
    CHECK(SumOf(text, "orch_workflow_job_duration_seconds_count{") >= 1);
    CHECK(text.find("# TYPE orch_workflow_queue_depth gauge") != std::string::npos);
    // No callback was asked for: the outbox is empty, and says so (0, not absent).
    CHECK(Sample(text, "orch_callback_deliveries_pending") == 0);
    CHECK(Sample(text, "orch_callback_oldest_pending_seconds") == 0);
    CHECK(Sample(text, R"(orch_http_requests_total{route="/metrics",method="GET",status="200"})") >= 2);
}

TEST_CASE("log lines of the workflow carry the request id and the deployment id", "[e2e][metrics][logs]") {
    OpsApi api;
    const auto created = api.Create();
    REQUIRE(created.status == 201);
    const std::string id = Json::parse(created.body)["uuid"];
    const std::string request_id = created.Header("X-Request-ID");
    REQUIRE_FALSE(request_id.empty());
    bool api_line = false;
    bool workflow_line = false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!(api_line && workflow_line) && std::chrono::steady_clock::now() < deadline) {
        std::istringstream log(api.process().Log());
        std::string line;
        while (std::getline(log, line)) {
            const auto json = Json::parse(line, nullptr, false);
            if (json.is_discarded() || json.value("request_id", "") != request_id) {
                continue;
            }
            const std::string msg = json.value("msg", "");
            api_line = api_line || msg == "deployment created";
            // Lines written by workflow steps (other threads, later) name both ids.
            workflow_line = workflow_line || (msg != "deployment created" && json.value("deployment_id", "") == id);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    CHECK(api_line);
    CHECK(workflow_line);
}
