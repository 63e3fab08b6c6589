#include "sim_test_util.hpp"

#include <common/json.hpp>

#include <catch2/catch.hpp>
#include <sim/site_sim.hpp>

using orch::Json;
using orch::sim::SimApi;
using orch::sim::test::BodyOf;
using orch::sim::test::Call;

namespace {

Json DockerApp(const std::string& id, int instances = 1) {
    return {
        {"id", id},
        {"instances", instances},
        {"cpus", 1.0},
        {"mem", 512.0},
        {"networks", {{{"mode", "container/bridge"}}}},
        {"container",
         {{"type", "DOCKER"},
          {"docker", {{"image", "nginx"}}},
          {"portMappings", {{{"containerPort", 80}, {"hostPort", 0}, {"servicePort", 0}, {"protocol", "tcp"}}}}}}};
}

Json GpuApp(const std::string& id, int gpus) {
    return {
        {"id", id},
        {"cpus", 1.0},
        {"mem", 1024.0},
        {"gpus", gpus},
        {"networks", {{{"mode", "host"}}}},
        {"portDefinitions", {{{"port", 0}, {"protocol", "tcp"}}}},
        {"container", {{"type", "MESOS"}, {"docker", {{"image", "tensorflow/tensorflow:latest-gpu"}}}}}};
}

Json GetApp(orch::sim::SiteSim& site, const std::string& id) {
    auto r = Call(site, SimApi::kMarathon, "GET", "/v2/apps" + id);
    REQUIRE(r.status == 200);
    return BodyOf(r)["app"];
}

std::string DetailErrors(const orch::sim::SimResponse& r) {
    return BodyOf(r)["details"].dump();
}

}  // namespace

TEST_CASE("a Marathon group is created, its tasks start, and deleting it stops them", "[sim][marathon]") {
    auto site = orch::sim::test::StillSite();
    auto created =
        Call(*site, SimApi::kMarathon, "POST", "/v2/groups", {{"id", "/dep1"}, {"apps", {DockerApp("web", 2)}}});
    REQUIRE(created.status == 201);
    CHECK(BodyOf(created).contains("deploymentId"));
    CHECK(orch::http::FindHeader(created.headers, "Marathon-Deployment-Id") == BodyOf(created)["deploymentId"]);

    Json app = GetApp(*site, "/dep1/web");
    CHECK(app["tasksStaged"] == 2);
    CHECK(app["tasksRunning"] == 0);
    CHECK(app["deployments"].size() == 1);
    CHECK(app["container"]["portMappings"][0]["servicePort"].get<int>() >= 10000);  // assigned

    site->AdvanceClock(1.5);
    app = GetApp(*site, "/dep1/web");
    CHECK(app["tasksRunning"] == 2);
    site->AdvanceClock(0.1);
    CHECK(GetApp(*site, "/dep1/web")["deployments"].empty());

    auto group = Call(*site, SimApi::kMarathon, "GET", "/v2/groups/dep1");
    REQUIRE(group.status == 200);
    CHECK(BodyOf(group)["apps"][0]["id"] == "/dep1/web");

    auto again = Call(*site, SimApi::kMarathon, "POST", "/v2/groups", {{"id", "/dep1"}, {"apps", {DockerApp("web")}}});
    CHECK(again.status == 409);
    CHECK(BodyOf(again)["message"] == "Group /dep1 is already created. Use PUT to change this group.");

    auto deleted = Call(*site, SimApi::kMarathon, "DELETE", "/v2/groups/dep1?force=true");
    REQUIRE(deleted.status == 200);
    CHECK(Call(*site, SimApi::kMarathon, "GET", "/v2/groups/dep1").status == 404);
    // The tasks are still being killed: the deletion is an in-flight deployment until they are gone.
    CHECK(BodyOf(Call(*site, SimApi::kMarathon, "GET", "/v2/deployments")).size() == 1);
    site->AdvanceClock(1.5);
    CHECK(BodyOf(Call(*site, SimApi::kMarathon, "GET", "/v2/deployments")).empty());
    CHECK(site->Objects()["marathon"]["tasks"].empty());
}

TEST_CASE("Marathon enforces its GPU and containerizer rules with 422 details", "[sim][marathon]") {
    auto site = orch::sim::test::StillSite();
    Json docker_gpu = DockerApp("g");
    docker_gpu["gpus"] = 1;
    auto r = Call(*site, SimApi::kMarathon, "POST", "/v2/groups", {{"id", "/d"}, {"apps", {docker_gpu}}});
    REQUIRE(r.status == 422);
    CHECK(BodyOf(r)["message"] == "Object is not valid");
    CHECK(DetailErrors(r).find("GPU resources only work with the Mesos containerizer") != std::string::npos);
    CHECK(DetailErrors(r).find("/apps(0)") != std::string::npos);

    Json mesos_network = GpuApp("g", 1);
    mesos_network["container"]["docker"]["network"] = "HOST";
    r = Call(*site, SimApi::kMarathon, "POST", "/v2/groups", {{"id", "/d"}, {"apps", {mesos_network}}});
    REQUIRE(r.status == 422);
    CHECK(DetailErrors(r).find("/apps(0)/container/docker/network") != std::string::npos);

    Json upper = GpuApp("g", 1);
    upper["networks"][0]["mode"] = "HOST";
    r = Call(*site, SimApi::kMarathon, "POST", "/v2/groups", {{"id", "/d"}, {"apps", {upper}}});
    REQUIRE(r.status == 422);
    CHECK(DetailErrors(r).find("/apps(0)/networks(0)/mode") != std::string::npos);

    auto malformed = site->Handle(SimApi::kMarathon, orch::sim::MakeSimRequest("POST", "/v2/groups", "{\"id\": "));
    CHECK(malformed.status == 400);
    CHECK(BodyOf(malformed)["message"] == "Invalid JSON");

    CHECK(
        Call(*site, SimApi::kMarathon, "POST", "/v2/groups", {{"id", "/d"}, {"apps", {GpuApp("g", 1)}}}).status == 201
    );
    CHECK(site->Rejections().size() == 4);
}

TEST_CASE("a GPU app that fits nowhere stays queued with the offers' reject reasons", "[sim][marathon]") {
    auto site = orch::sim::test::StillSite();
    REQUIRE(
        Call(*site, SimApi::kMarathon, "POST", "/v2/groups", {{"id", "/big"}, {"apps", {GpuApp("train", 4)}}}).status ==
        201
    );
    site->AdvanceClock(5);
    CHECK(GetApp(*site, "/big/train")["tasksRunning"] == 0);
    const Json queue = BodyOf(Call(*site, SimApi::kMarathon, "GET", "/v2/queue"))["queue"];
    REQUIRE(queue.size() == 1);
    const Json summary = queue[0]["processedOffersSummary"];
    CHECK(summary["processedOffersCount"] == 3);
    CHECK(summary["unusedOffersCount"] == 3);
    CHECK(summary["rejectSummaryLastOffers"].dump().find("InsufficientGpus") != std::string::npos);

    // A GPU model constraint that no agent satisfies is rejected by every agent too.
    Json model = GpuApp("model", 1);
    model["constraints"] = {{"gpu_model", "LIKE", "(?i).*a100.*"}};
    REQUIRE(Call(*site, SimApi::kMarathon, "POST", "/v2/groups", {{"id", "/m"}, {"apps", {model}}}).status == 201);
    site->AdvanceClock(2);
    CHECK(GetApp(*site, "/m/model")["tasksRunning"] == 0);
    model["id"] = "/m2/model";
    model["constraints"] = {{"gpu_model", "LIKE", "(?i).*V100.*"}};
    REQUIRE(Call(*site, SimApi::kMarathon, "POST", "/v2/apps", model).status == 201);
    site->AdvanceClock(2);
    const Json placed = GetApp(*site, "/m2/model");
    CHECK(placed["tasksRunning"] == 1);
    CHECK(placed["tasks"][0]["host"] == "gpu-agent-1.sim");
}

TEST_CASE("failing tasks leave lastTaskFailure and health checks gate tasksHealthy", "[sim][marathon]") {
    auto site = orch::sim::test::StillSite();
    Json failing = DockerApp("crash");
    failing["env"] = {{"SIM_TASK_FAILURE", "Container exited with status 1"}};
    Json checked = DockerApp("checked");
    checked["healthChecks"] = {{{"protocol", "MESOS_TCP"}, {"portIndex", 0}}};
    REQUIRE(Call(*site, SimApi::kMarathon, "POST", "/v2/groups", {{"id", "/h"}, {"apps", {failing}}}).status == 201);
    REQUIRE(Call(*site, SimApi::kMarathon, "POST", "/v2/groups", {{"id", "/k"}, {"apps", {checked}}}).status == 201);
    site->AdvanceClock(1.2);
    const Json crash = GetApp(*site, "/h/crash");
    CHECK(crash["tasksRunning"] == 0);
    CHECK(crash["lastTaskFailure"]["message"] == "Container exited with status 1");
    CHECK(crash["lastTaskFailure"]["state"] == "TASK_FAILED");
    CHECK_FALSE(crash["deployments"].empty());  // Marathon keeps trying; it never reports failure
    Json app = GetApp(*site, "/k/checked");
    CHECK(app["tasksRunning"] == 1);
    CHECK(app["tasksHealthy"] == 0);
    site->AdvanceClock(1.2);
    app = GetApp(*site, "/k/checked");
    CHECK(app["tasksHealthy"] == 1);
    CHECK(app["deployments"].empty());
}

TEST_CASE("apps scale with PUT, lock during deployments, and tasks can be killed", "[sim][marathon]") {
    auto site = orch::sim::test::StillSite();
    REQUIRE(
        Call(*site, SimApi::kMarathon, "POST", "/v2/groups", {{"id", "/s"}, {"apps", {DockerApp("web")}}}).status == 201
    );
    auto locked = Call(*site, SimApi::kMarathon, "PUT", "/v2/apps/s/web", {{"instances", 3}});
    CHECK(locked.status == 409);
    CHECK(BodyOf(locked)["message"].get<std::string>().find("locked") != std::string::npos);
    CHECK(Call(*site, SimApi::kMarathon, "PUT", "/v2/apps/s/web?force=true", {{"instances", 3}}).status == 200);
    site->AdvanceClock(1.5);
    Json app = GetApp(*site, "/s/web");
    CHECK(app["tasksRunning"] == 3);
    CHECK(app["container"]["docker"]["image"] == "nginx");  // partial update kept the rest

    const std::string task = app["tasks"][0]["id"];
    CHECK(Call(*site, SimApi::kMarathon, "DELETE", "/v2/apps/s/web/tasks/" + task + "?scale=true").status == 200);
    site->AdvanceClock(0.1);
    CHECK(GetApp(*site, "/s/web")["instances"] == 2);
    CHECK(Call(*site, SimApi::kMarathon, "DELETE", "/v2/apps/s/web/tasks/nope").status == 404);

    Json invalid = {{"instances", -1}};
    CHECK(Call(*site, SimApi::kMarathon, "PUT", "/v2/apps/s/web?force=true", invalid).status == 422);
    CHECK(Call(*site, SimApi::kMarathon, "DELETE", "/v2/apps/s/web").status == 200);
    CHECK(Call(*site, SimApi::kMarathon, "GET", "/v2/apps/s/web").status == 404);
    CHECK(Call(*site, SimApi::kMarathon, "GET", "/v2/nothing").status == 404);
}
