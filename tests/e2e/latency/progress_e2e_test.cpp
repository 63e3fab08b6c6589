// Progress you can watch, end to end: the real orchestrator binary on a simulated Marathon site.
// A GPU deployment is seen complete promptly (early fast polls), a crash-looping application
// fails its attempt with the site's own reason long before the provider timeout, and the
// caller's W3C trace reaches the site and every log line of the deployment.
#include "../sites/site_rig.hpp"
#include "test_support/poll_deployment.hpp"
#include "test_support/process.hpp"
#include "test_support/test_env.hpp"

#include <common/trace_context.hpp>

#include <catch2/catch.hpp>

#include <sstream>
#include <thread>

namespace {

using orch::Json;
using orch::e2e::SimProcess;
using orch::e2e::SiteSpec;

// Tasks start in 1 s of simulated time; speed 20 makes that 50 ms.
constexpr const char* kSimConfig =
    "speed: 20\n"
    "mesos_agents:\n"
    "  - {hostname: gpu-a.sim, cpus: 16, mem_mb: 65536, disk_mb: 500000, gpus: 4, attributes: {gpu_model: Tesla-T4}}\n";

// The product's poll defaults: the rig sets its own quicker polls unless the workflow section
// names the key, and a YAML comment naming them is enough to leave the product's in force.
constexpr const char* kDefaultPolls = "  #  first_poll:  max_poll:  idle_poll: the product's defaults\n";

struct OneSite {
    explicit OneSite(const std::string& workflow_yaml, const std::string& top_level_yaml = "")
        : sim(kSimConfig),
          orchestrator(
              db.dsn(),
              {},
              orch::e2e::WriteOrchestratorConfig(
                  {SiteSpec{"SITE-A", &sim, "Tesla T4", 4, 1.0, true, false, false}}, workflow_yaml, top_level_yaml
              )
          ),
          api(orchestrator.BaseUrl()) {
        REQUIRE(orch::test::WaitForStatus(orchestrator.BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));
    }

    orch::test::TestDatabase db;
    SimProcess sim;
    orch::test::OrchestratorProcess orchestrator;
    orch::e2e::Api api;
};

std::string GpuWebdav(const std::string& extra_env_line = "") {
    std::string text = orch::e2e::WithGpuModel(orch::e2e::CorpusTemplate(orch::e2e::kWebdav), "Tesla T4");
    if (!extra_env_line.empty()) {
        text = orch::e2e::InsertAfter(std::move(text), "RCLONE_CONFIG_RSHARE_TYPE: webdav", extra_env_line);
    }
    return text;
}

Json Body(const std::string& template_text) {
    return {
        {"template", template_text}, {"parameters", {{"docker_image", "deephdc/deep-oc-generic"}, {"num_gpus", 1}}}};
}

// Polls GET quickly (every 10 ms) until the status leaves CREATE_IN_PROGRESS or `timeout` passes.
Json WaitQuickly(orch::e2e::Api& api, const std::string& id, std::chrono::milliseconds timeout) {
    return orch::test::PollDeployment(
               [&]() -> std::optional<Json> {
                   const auto res = api.Call("GET", "/deployments/" + id);
                   return res.status == 200 ? std::optional<Json>(Json::parse(res.body)) : std::nullopt;
               },
               [](const Json& d) { return d.value("status", "") != "CREATE_IN_PROGRESS"; },
               timeout,
               std::chrono::milliseconds(10)
    )
        .last;
}

}  // namespace

TEST_CASE("a Marathon GPU deployment is CREATE_COMPLETE within 1 s of the POST", "[e2e][sites][progress]") {
    OneSite site(kDefaultPolls);
    const auto started = std::chrono::steady_clock::now();
    const auto res = site.api.Call("POST", "/deployments", Body(GpuWebdav()).dump());
    REQUIRE(res.status == 201);
    const std::string id = Json::parse(res.body)["uuid"];
    const Json d = WaitQuickly(site.api, id, std::chrono::seconds(10));
    const auto elapsed = std::chrono::steady_clock::now() - started;
    INFO(d.dump(2));
    REQUIRE(d["status"] == "CREATE_COMPLETE");
    CHECK(elapsed < std::chrono::seconds(1));
}

TEST_CASE("a crash-looping application fails its attempt with the site's reason", "[e2e][sites][progress]") {
    // The limit is seconds here instead of the default minutes; the provider timeout stays at its
    // ten-day default, so only the crash-loop detection can end this.
    OneSite site(std::string(kDefaultPolls) + "  crash_loop_timeout: 3s\n");
    const std::string cuda = "CUDA error: no CUDA-capable device is detected";
    const auto started = std::chrono::steady_clock::now();
    const auto res =
        site.api.Call("POST", "/deployments", Body(GpuWebdav("SIM_TASK_FAILURE: \"" + cuda + "\"")).dump());
    REQUIRE(res.status == 201);
    const std::string id = Json::parse(res.body)["uuid"];
    const Json d = site.api.WaitFor(id, {"CREATE_COMPLETE", "CREATE_FAILED"}, std::chrono::seconds(60));
    const auto elapsed = std::chrono::steady_clock::now() - started;
    INFO(d.dump(2));
    REQUIRE(d["status"] == "CREATE_FAILED");
    CHECK(d.value("statusReason", "").find(cuda) != std::string::npos);
    CHECK(elapsed < std::chrono::seconds(30));  // 3 s of crash loop and one poll interval, not ten days
    const Json attempts = Json::parse(site.api.Call("GET", "/deployments/" + id + "/attempts").body)["attempts"];
    REQUIRE(attempts.size() == 1);
    CHECK(attempts[0]["outcome"] == "FAILED");
    CHECK(attempts[0]["reason"].get<std::string>().rfind("The application cannot start: ", 0) == 0);
    CHECK(attempts[0]["reason"].get<std::string>().find(cuda) != std::string::npos);
}

TEST_CASE("the caller's traceparent reaches the site and every log line of the deployment", "[e2e][sites][trace]") {
    OneSite site(kDefaultPolls, "log:\n  level: info\n");
    const std::string trace_id = orch::trace::NewTraceId();
    auto client = orch::http::MakeClient({});
    REQUIRE(client);
    orch::http::ClientRequest post;
    post.method = "POST";
    post.url = site.orchestrator.BaseUrl() + "/deployments";
    post.body = Body(GpuWebdav()).dump();
    post.headers = {
        {"Content-Type", "application/json"},
        {"traceparent", orch::trace::FormatTraceparent(trace_id, orch::trace::NewSpanId(), true)}};
    const auto res = (*client)->Send(post);
    REQUIRE(res);
    REQUIRE(res->status == 201);
    const std::string id = Json::parse(res->body)["uuid"];
    REQUIRE(
        site.api.WaitFor(id, {"CREATE_COMPLETE", "CREATE_FAILED"}, std::chrono::seconds(60))["status"] ==
        "CREATE_COMPLETE"
    );

    // The site saw the trace on the create and on the polls, each call with its own span id.
    std::set<std::string> spans;
    for (const auto& t : site.sim.Traces()) {
        const auto parsed = orch::trace::ParseTraceparent(t.value("traceparent", ""));
        REQUIRE(parsed);
        if (parsed->trace_id == trace_id) {
            CHECK(parsed->sampled);
            spans.insert(parsed->parent_id);
        }
    }
    CHECK(spans.size() >= 2);

    // Every log line about the deployment (request and workflow steps) carries the trace id.
    std::istringstream log(site.orchestrator.process().Log());
    int lines = 0;
    for (std::string line; std::getline(log, line);) {
        const Json entry = Json::parse(line, nullptr, false);
        if (entry.is_discarded() || entry.value("deployment_id", "") != id) {
            continue;
        }
        INFO(line);
        CHECK(entry.value("trace_id", "") == trace_id);
        ++lines;
    }
    CHECK(lines >= 1);

    // An invalid traceparent is ignored: the request still succeeds, under a new trace.
    post.headers.back().second = "00-" + trace_id + "-0000000000000000-01";
    post.body = Body(GpuWebdav()).dump();
    const auto second = (*client)->Send(post);
    REQUIRE(second);
    CHECK(second->status == 201);
}
