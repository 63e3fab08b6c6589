#include "sim_test_util.hpp"

#include <common/json.hpp>

#include <catch2/catch.hpp>
#include <sim/site_sim.hpp>

using orch::Json;
using orch::sim::SimApi;
using orch::sim::test::BodyOf;
using orch::sim::test::Call;

namespace {

Json Job(const std::string& name) {
    return {
        {"name", name},
        {"command", "echo hi"},
        {"schedule", "R1//PT1H"},
        {"cpus", 0.5},
        {"mem", 256},
        {"container", {{"type", "DOCKER"}, {"image", "busybox"}}}};
}

Json Find(orch::sim::SiteSim& site, const std::string& name) {
    const Json jobs = BodyOf(Call(site, SimApi::kChronos, "GET", "/v1/scheduler/jobs/search?name=" + name));
    for (const auto& job : jobs) {
        if (job["name"] == name) {
            return job;
        }
    }
    return nullptr;
}

}  // namespace

TEST_CASE("a Chronos job runs once, and its dependent runs after it", "[sim][chronos]") {
    auto site = orch::sim::test::StillSite();
    REQUIRE(Call(*site, SimApi::kChronos, "POST", "/v1/scheduler/iso8601", Job("d1-parent")).status == 204);
    Json child = Job("d1-child");
    child.erase("schedule");
    child["parents"] = {"d1-parent"};
    REQUIRE(Call(*site, SimApi::kChronos, "POST", "/v1/scheduler/dependency", child).status == 204);

    CHECK(Find(*site, "d1-parent")["successCount"] == 0);
    const Json summary = BodyOf(Call(*site, SimApi::kChronos, "GET", "/v1/scheduler/jobs/summary"))["jobs"];
    CHECK(summary.size() == 2);
    site->AdvanceClock(2.5);
    Json parent = Find(*site, "d1-parent");
    CHECK(parent["successCount"] == 1);
    CHECK_FALSE(parent["lastSuccess"].get<std::string>().empty());
    CHECK(Find(*site, "d1-child")["successCount"] == 0);
    site->AdvanceClock(2.5);
    CHECK(Find(*site, "d1-child")["successCount"] == 1);
    site->AdvanceClock(7200);  // R1: no second run
    CHECK(Find(*site, "d1-parent")["successCount"] == 1);

    const auto csv = Call(*site, SimApi::kChronos, "GET", "/v1/scheduler/graph/csv");
    CHECK(csv.body.find("node,d1-parent,success,idle") != std::string::npos);
    CHECK(csv.body.find("link,d1-parent,d1-child") != std::string::npos);

    CHECK(Call(*site, SimApi::kChronos, "DELETE", "/v1/scheduler/job/d1-child").status == 204);
    CHECK(Call(*site, SimApi::kChronos, "DELETE", "/v1/scheduler/job/d1-child").status == 400);
    CHECK(Call(*site, SimApi::kChronos, "DELETE", "/scheduler/job/d1-parent").status == 204);  // without /v1 too
    CHECK(site->Objects()["chronos"]["jobs"].empty());
}

TEST_CASE("a failing Chronos job is retried, then counted as an error", "[sim][chronos]") {
    auto site = orch::sim::test::StillSite();
    Json job = Job("bad");
    job["retries"] = 1;
    job["environmentVariables"] = {{{"name", "SIM_EXIT_CODE"}, {"value", "3"}}};
    REQUIRE(Call(*site, SimApi::kChronos, "POST", "/v1/scheduler/iso8601", job).status == 204);
    site->AdvanceClock(2.5);  // first attempt fails, retry queued
    CHECK(Find(*site, "bad")["errorCount"] == 0);
    site->AdvanceClock(2.5);
    const Json after = Find(*site, "bad");
    CHECK(after["errorCount"] == 1);
    CHECK(after["successCount"] == 0);
}

TEST_CASE("repeating schedules run every period and a future start waits", "[sim][chronos]") {
    auto site = orch::sim::test::StillSite();
    Json every = Job("tick");
    every["schedule"] = "R/2001-01-01T00:00:00Z/PT10S";
    every["environmentVariables"] = {{{"name", "SIM_RUN_SECONDS"}, {"value", "1"}}};
    REQUIRE(Call(*site, SimApi::kChronos, "POST", "/v1/scheduler/iso8601", every).status == 204);
    Json later = Job("later");
    later["schedule"] = "R1/2999-01-01T00:00:00Z/PT1H";
    REQUIRE(Call(*site, SimApi::kChronos, "POST", "/v1/scheduler/iso8601", later).status == 204);
    for (int i = 0; i < 6; ++i) {
        site->AdvanceClock(5);
        Call(*site, SimApi::kChronos, "GET", "/v1/scheduler/jobs");
    }
    CHECK(Find(*site, "tick")["successCount"].get<int>() >= 2);
    CHECK(Find(*site, "later")["successCount"] == 0);
}

TEST_CASE("Chronos job bodies are checked field by field", "[sim][chronos]") {
    auto site = orch::sim::test::StillSite();
    const auto reject = [&](const Json& body, const std::string& path, const std::string& words) {
        auto r = Call(*site, SimApi::kChronos, "POST", path, body);
        CHECK(r.status == 400);
        CHECK(r.body.find(words) != std::string::npos);
    };
    Json bad_name = Job("no spaces");
    reject(bad_name, "/v1/scheduler/iso8601", "name");
    Json both = Job("both");
    both["parents"] = {"x"};
    reject(both, "/v1/scheduler/iso8601", "either a schedule or parents");
    Json unknown = Job("unknown");
    unknown["gpu"] = 1;
    reject(unknown, "/v1/scheduler/iso8601", "unknown field 'gpu'");
    Json schedule = Job("sched");
    schedule["schedule"] = "every day";
    reject(schedule, "/v1/scheduler/iso8601", "ISO 8601");
    Json orphan = Job("orphan");
    orphan.erase("schedule");
    orphan["parents"] = {"missing"};
    reject(orphan, "/v1/scheduler/dependency", "Parent job 'missing' not found");
    Json docker_gpu = Job("dg");
    docker_gpu["gpus"] = 1;
    reject(docker_gpu, "/v1/scheduler/iso8601", "Mesos containerizer");
    Json epsilon = Job("eps");
    epsilon["epsilon"] = "10 seconds";
    reject(epsilon, "/v1/scheduler/iso8601", "duration");
    auto malformed = site->Handle(SimApi::kChronos, orch::sim::MakeSimRequest("POST", "/v1/scheduler/iso8601", "{"));
    CHECK(malformed.status == 400);
}

TEST_CASE("a Chronos without GPU support drops the gpus field like upstream", "[sim][chronos]") {
    auto config = orch::sim::SimConfig::Default();
    config.chronos_gpu_support = false;
    auto site = orch::sim::test::StillSite(config);
    Json job = Job("gpu");
    job["gpus"] = 1;
    job["container"]["type"] = "MESOS";
    REQUIRE(Call(*site, SimApi::kChronos, "POST", "/v1/scheduler/iso8601", job).status == 204);
    CHECK_FALSE(Find(*site, "gpu").contains("gpus"));
}
