#include "sim_test_util.hpp"

#include <common/json.hpp>

#include <catch2/catch.hpp>
#include <sim/fault_injector.hpp>
#include <sim/sim_config.hpp>
#include <sim/site_sim.hpp>

using orch::Json;
using orch::sim::SimApi;
using orch::sim::test::BodyOf;
using orch::sim::test::Call;

TEST_CASE("injected faults hit the matching requests the given number of times", "[sim][faults]") {
    auto site = orch::sim::test::StillSite();
    auto added = Call(
        *site,
        SimApi::kMarathon,
        "POST",
        "/__sim/faults",
        Json::array(
            {{{"api", "marathon"}, {"path", "/v2/groups"}, {"kind", "status"}, {"status", 503}, {"times", 2}},
             {{"api", "kubernetes"}, {"kind", "reset"}},
             {{"api", "chronos"}, {"kind", "malformed"}},
             {{"api", "marathon"}, {"path", "/v2/info"}, {"kind", "slow"}, {"delay_ms", 1500}}}
        )
    );
    REQUIRE(added.status == 201);
    CHECK(BodyOf(added).size() == 4);

    const Json group = {{"id", "/f"}, {"apps", Json::array()}};
    auto first = Call(*site, SimApi::kMarathon, "GET", "/v2/groups/x");
    CHECK(first.status == 503);
    CHECK(BodyOf(first)["message"].get<std::string>().find("injected") != std::string::npos);
    CHECK(Call(*site, SimApi::kMarathon, "GET", "/v2/groups/x").status == 503);
    CHECK(Call(*site, SimApi::kMarathon, "GET", "/v2/groups/x").status == 404);  // used up

    CHECK(Call(*site, SimApi::kKubernetes, "GET", "/version").reset);
    CHECK_FALSE(Call(*site, SimApi::kKubernetes, "GET", "/version").reset);

    auto garbled = Call(*site, SimApi::kChronos, "GET", "/v1/scheduler/jobs");
    CHECK(garbled.status == 200);
    CHECK_FALSE(orch::ParseJson(garbled.body));

    auto slow = Call(*site, SimApi::kMarathon, "GET", "/v2/info");
    CHECK(slow.status == 200);
    CHECK(slow.delay == std::chrono::milliseconds(1500));

    const Json listed = BodyOf(Call(*site, SimApi::kMarathon, "GET", "/__sim/faults"));
    CHECK(listed[0]["hits"] == 2);
    CHECK(Call(*site, SimApi::kMarathon, "DELETE", "/__sim/faults").status == 204);
    CHECK(BodyOf(Call(*site, SimApi::kMarathon, "GET", "/__sim/faults")).empty());
}

TEST_CASE("a capacity fault makes the cluster behave as if GPUs were used up", "[sim][faults]") {
    auto site = orch::sim::test::StillSite();
    REQUIRE(site->AddFault({{"api", "kubernetes"}, {"kind", "capacity"}, {"resource", "gpus"}}));
    REQUIRE(
        Call(
            *site,
            SimApi::kKubernetes,
            "POST",
            "/api/v1/namespaces",
            {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "n"}}}}
        ).status == 201
    );
    Json deployment = {
        {"apiVersion", "apps/v1"},
        {"kind", "Deployment"},
        {"metadata", {{"name", "g"}}},
        {"spec",
         {{"selector", {{"matchLabels", {{"app", "g"}}}}},
          {"template",
           {{"metadata", {{"labels", {{"app", "g"}}}}},
            {"spec",
             {{"containers",
               {{{"name", "g"}, {"image", "x:1"}, {"resources", {{"limits", {{"nvidia.com/gpu", 1}}}}}}}}}}}}}}};
    REQUIRE(
        Call(*site, SimApi::kKubernetes, "POST", "/apis/apps/v1/namespaces/n/deployments", deployment).status == 201
    );
    Call(*site, SimApi::kKubernetes, "GET", "/version");
    const Json pod = BodyOf(Call(*site, SimApi::kKubernetes, "GET", "/api/v1/namespaces/n/pods"))["items"][0];
    CHECK(pod["status"]["conditions"][0]["message"] == "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.");
    site->ClearFaults();
    Call(*site, SimApi::kKubernetes, "GET", "/version");
    const Json again = BodyOf(Call(*site, SimApi::kKubernetes, "GET", "/api/v1/namespaces/n/pods"))["items"][0];
    CHECK(again["status"]["conditions"][0]["status"] == "True");
}

TEST_CASE("fault rules are validated", "[sim][faults]") {
    orch::sim::FaultInjector faults;
    CHECK_FALSE(faults.Add({{"kind", "explode"}}));
    CHECK_FALSE(faults.Add({{"api", "nova"}}));
    CHECK_FALSE(faults.Add({{"kind", "slow"}}));
    CHECK_FALSE(faults.Add({{"status", 700}}));
    CHECK_FALSE(faults.Add({{"surprise", true}}));
    CHECK_FALSE(faults.Add(Json::array()));
    auto ok = faults.Add({{"kind", "status"}, {"status", 500}, {"skip", 1}, {"times", 1}});
    REQUIRE(ok);
    CHECK_FALSE(faults.MatchRequest("marathon", "GET", "/x"));  // skipped
    CHECK(faults.MatchRequest("chronos", "GET", "/y"));
    CHECK_FALSE(faults.MatchRequest("chronos", "GET", "/y"));
}

TEST_CASE("credentials are enforced when the site configures them", "[sim][auth]") {
    auto config = orch::sim::SimConfig::Default();
    config.tokens = {"good-token"};
    config.basic = {"alice:secret"};
    auto site = orch::sim::test::StillSite(config);
    const auto call = [&](SimApi api, const std::string& path, const std::string& auth) {
        orch::http::Headers headers;
        if (!auth.empty()) {
            headers.emplace_back("Authorization", auth);
        }
        return site->Handle(api, orch::sim::MakeSimRequest("GET", path, "", headers));
    };
    CHECK(call(SimApi::kMarathon, "/v2/info", "").status == 401);
    CHECK(call(SimApi::kMarathon, "/v2/info", "Bearer bad").status == 401);
    CHECK(call(SimApi::kMarathon, "/v2/info", "Bearer good-token").status == 200);
    CHECK(
        call(SimApi::kChronos, "/v1/scheduler/jobs", "bearer good-token").status == 200
    );  // chronos-client's spelling
    CHECK(call(SimApi::kChronos, "/v1/scheduler/jobs", "Basic YWxpY2U6c2VjcmV0").status == 200);
    const auto k8s = call(SimApi::kKubernetes, "/version", "Basic YWxpY2U6d3Jvbmc=");
    CHECK(k8s.status == 401);
    CHECK(BodyOf(k8s)["reason"] == "Unauthorized");
    CHECK(call(SimApi::kKubernetes, "/__sim/health", "").status == 200);  // admin endpoints need none
}

TEST_CASE("the admin endpoints: clock, capacity, objects, rejections", "[sim][admin]") {
    auto site = orch::sim::test::StillSite();
    const Json before = BodyOf(Call(*site, SimApi::kChronos, "GET", "/__sim/clock"));
    REQUIRE(Call(*site, SimApi::kChronos, "POST", "/__sim/clock", {{"advance_seconds", 3600}}).status == 200);
    const Json after = BodyOf(Call(*site, SimApi::kChronos, "GET", "/__sim/clock"));
    CHECK(after["now"] > before["now"]);
    CHECK(Call(*site, SimApi::kChronos, "POST", "/__sim/clock", {{"advance_seconds", -1}}).status == 400);

    auto capacity = Call(
        *site,
        SimApi::kMarathon,
        "PUT",
        "/__sim/capacity",
        {{"mesos_agents", {{{"hostname", "only.sim"}, {"cpus", 2}, {"mem_mb", 1024}, {"disk_mb", 1000}}}}}
    );
    REQUIRE(capacity.status == 200);
    CHECK(BodyOf(capacity)["mesos_agents"].size() == 1);
    CHECK(Call(*site, SimApi::kMarathon, "PUT", "/__sim/capacity", {{"mesos_agents", {{{"cpus", 2}}}}}).status == 400);
    CHECK(BodyOf(Call(*site, SimApi::kMarathon, "GET", "/__sim/objects"))["mesos_agents"][0]["hostname"] == "only.sim");
    CHECK(Call(*site, SimApi::kMarathon, "GET", "/__sim/nothing").status == 404);

    CHECK(Call(*site, SimApi::kMarathon, "POST", "/v2/apps", {{"id", "/x"}, {"cpus", "lots"}}).status == 422);
    const Json rejections = BodyOf(Call(*site, SimApi::kMarathon, "GET", "/__sim/rejections"));
    REQUIRE(rejections.size() == 1);
    CHECK(rejections[0]["api"] == "marathon");
    CHECK(Call(*site, SimApi::kMarathon, "DELETE", "/__sim/rejections").status == 204);
    CHECK(site->Rejections().empty());
}

TEST_CASE("site-sim configuration from YAML, with errors naming the key", "[sim][config]") {
    auto yaml = orch::sim::YamlToJson(
        R"(
speed: 10
timing: {task_start: 0.5}
mesos_agents:
  - {hostname: a.sim, cpus: 4, mem_mb: 8192, disk_mb: 10000, gpus: 1, attributes: {gpu_model: "tesla-t4"}}
kube_nodes:
  - {name: n1, cpu: 8, memory_mb: 16384, gpus: 4, gpu_product: NVIDIA-A100-SXM4-40GB, gpu_taint: true}
chronos: {gpu_support: false}
auth: {tokens: [t1]}
faults: [{kind: status, status: 500, api: marathon}]
)",
        "sim.yaml"
    );
    REQUIRE(yaml);
    auto config = orch::sim::ParseSimConfig(*yaml);
    REQUIRE(config);
    CHECK(config->speed == 10);
    CHECK(config->timing.task_start == 0.5);
    CHECK(config->mesos_agents.size() == 1);
    CHECK(config->mesos_agents[0].attributes.at("gpu_model") == "tesla-t4");
    CHECK(config->kube_nodes[0].gpu_taint);
    CHECK_FALSE(config->chronos_gpu_support);
    CHECK(config->tokens == std::vector<std::string>{"t1"});
    auto site = orch::sim::SiteSim::Create(*config, orch::sim::test::Schemas());
    REQUIRE(site);
    CHECK(BodyOf(Call(**site, SimApi::kMarathon, "GET", "/__sim/faults")).size() == 1);

    auto typo = orch::sim::ParseSimConfig(Json::parse(R"({"mesos_agents": [{"hostname": "a", "cpu": 4}]})"));
    REQUIRE_FALSE(typo);
    CHECK(typo.error().message.find("mesos_agents[0].cpu") != std::string::npos);
    CHECK_FALSE(orch::sim::ParseSimConfig(Json::parse(R"({"speed": "fast"})")));
    CHECK_FALSE(orch::sim::YamlToJson("a: [unclosed", "x.yaml"));
    CHECK_FALSE(orch::sim::SiteSim::Create(orch::sim::SimConfig::Default(), nullptr));
}
