// Marathon and Chronos parity through the real orchestrator binary on site-sim: PUT scales a
// Marathon app and passes its changed inputs, stop/start run the app on 0 instances and back on
// the count it had, PUT changes a Chronos job's command and schedule, stop/start disable and
// enable the job. What the site holds is read from the simulators' own APIs, and every request
// the connectors sent passed their schemas.
#include "site_rig.hpp"
#include "test_support/process.hpp"
#include "test_support/test_env.hpp"

#include <catch2/catch.hpp>

#include <thread>

namespace {

using orch::Json;
using orch::e2e::SimProcess;
using orch::e2e::SiteSpec;

constexpr auto kTimeout = std::chrono::seconds(90);

// The INDIGO Marathon type declares no `scalable` capability (its apps run one instance); a
// template that scales its app declares it on a type of its own derived from it, which still
// routes to Marathon.
constexpr char kMarathonTemplate[] = R"(tosca_definitions_version: tosca_simple_yaml_1_0
imports:
  - indigo_custom_types: https://raw.githubusercontent.com/indigo-dc/tosca-types/master/custom_types.yaml
node_types:
  e2e.ScalableMarathonApp:
    derived_from: tosca.nodes.indigo.Container.Application.Docker.Marathon
    capabilities:
      scalable:
        type: tosca.capabilities.indigo.Scalable
topology_template:
  inputs:
    instances: {type: integer, default: 1}
    message: {type: string, default: hello}
  node_templates:
    web:
      type: e2e.ScalableMarathonApp
      properties:
        environment_variables:
          MESSAGE: { get_input: message }
      capabilities:
        scalable:
          properties:
            count: { get_input: instances }
      artifacts:
        image:
          file: nginx
          type: tosca.artifacts.Deployment.Image.Container.Docker
      requirements:
        - host: docker
    docker:
      type: tosca.nodes.indigo.Container.Runtime.Docker
      capabilities:
        host:
          properties: {num_cpus: 0.5, mem_size: 256 MB}
  outputs:
    app_id:
      value: { get_attribute: [ web, app_id ] }
    driver:
      value: { get_attribute: [ web, gpu_driver_version ] }
)";

constexpr char kChronosTemplate[] = R"(tosca_definitions_version: tosca_simple_yaml_1_0
imports:
  - indigo_custom_types: https://raw.githubusercontent.com/indigo-dc/tosca-types/master/custom_types.yaml
topology_template:
  inputs:
    command: {type: string, default: echo first}
    schedule: {type: string, default: R/2015-01-01T00:00:00Z/PT1H}
  node_templates:
    job:
      type: tosca.nodes.indigo.Container.Application.Docker.Chronos
      properties:
        command: { get_input: command }
        schedule: { get_input: schedule }
        retries: 1
      artifacts:
        image:
          file: busybox
          type: tosca.artifacts.Deployment.Image.Container.Docker
      requirements:
        - host: docker
    docker:
      type: tosca.nodes.indigo.Container.Runtime.Docker
      capabilities:
        host:
          properties: {num_cpus: 0.5, mem_size: 256 MB}
)";

struct ParitySite {
    ParitySite()
        : sim("speed: 20\n"),
          orchestrator(
              db.dsn(),
              {},
              orch::e2e::WriteOrchestratorConfig({SiteSpec{"SITE-P", &sim, "", 0, 1.0, true, true, false}})
          ),
          api(orchestrator.BaseUrl()) {
        REQUIRE(orch::test::WaitForStatus(orchestrator.BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));
    }

    Json Site(const std::string& api_name, const std::string& path) const {
        orch::e2e::Api site(sim.Url(api_name));
        const auto res = site.Call("GET", path);
        INFO(res.body);
        REQUIRE(res.status == 200);
        return Json::parse(res.body);
    }

    // The deployment's resources of one node, by their state.
    std::multiset<std::string> States(const std::string& id, const std::string& node) {
        const auto res = api.Call("GET", "/deployments/" + id + "/resources?size=50");
        REQUIRE(res.status == 200);
        std::multiset<std::string> states;
        const Json listed = Json::parse(res.body);
        for (const auto& r : listed["content"]) {
            if (r.value("toscaNodeName", "") == node) {
                states.insert(r.value("state", ""));
            }
        }
        return states;
    }

    std::string AnyResourceOf(const std::string& id, const std::string& node) {
        const auto res = api.Call("GET", "/deployments/" + id + "/resources?size=50");
        REQUIRE(res.status == 200);
        const Json listed = Json::parse(res.body);
        for (const auto& r : listed["content"]) {
            if (r.value("toscaNodeName", "") == node) {
                return r.value("uuid", "");
            }
        }
        return "";
    }

    // Polls the node's resources until all `count` of them are in `state`.
    bool WaitForStates(const std::string& id, const std::string& node, const std::string& state, std::size_t count) {
        const auto deadline = std::chrono::steady_clock::now() + kTimeout;
        while (std::chrono::steady_clock::now() < deadline) {
            const auto states = States(id, node);
            if (states.size() == count && states.count(state) == count) {
                return true;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
        }
        return false;
    }

    orch::test::TestDatabase db;
    SimProcess sim;
    orch::test::OrchestratorProcess orchestrator;
    orch::e2e::Api api;
};

}  // namespace

TEST_CASE(
    "PUT scales a Marathon app and updates its inputs, stop and start run it on 0 and n", "[e2e][sites][parity]"
) {
    ParitySite site;
    const auto posted = site.api.Call(
        "POST", "/deployments", Json{{"template", kMarathonTemplate}, {"parameters", {{"instances", 1}}}}.dump()
    );
    INFO(posted.body);
    REQUIRE(posted.status == 201);
    const std::string id = Json::parse(posted.body)["uuid"].get<std::string>();
    const Json created = site.api.WaitFor(id, {"CREATE_COMPLETE", "CREATE_FAILED"}, kTimeout);
    INFO(created.dump());
    REQUIRE(created["status"] == "CREATE_COMPLETE");
    const std::string app_path = "/v2/apps/" + id + "/web";
    CHECK(site.Site("marathon", app_path)["app"]["instances"] == 1);
    // An output needing an attribute Marathon does not report is null, and statusReason says why,
    // instead of an evaluation error text posing as its value.
    CHECK(created["outputs"]["app_id"] == "/" + id + "/web");
    CHECK(created["outputs"]["driver"].is_null());
    CHECK(
        created.value("statusReason", "") ==
        "Outputs without a value: driver (attribute gpu_driver_version of node web is not available)"
    );

    const auto put = site.api.Call(
        "PUT",
        "/deployments/" + id,
        Json{{"template", kMarathonTemplate}, {"parameters", {{"instances", 3}, {"message", "bye"}}}}.dump()
    );
    INFO(put.body);
    REQUIRE(put.status == 202);
    const Json updated = site.api.WaitFor(id, {"UPDATE_COMPLETE", "UPDATE_FAILED"}, kTimeout);
    INFO(updated.dump());
    REQUIRE(updated["status"] == "UPDATE_COMPLETE");
    const Json app = site.Site("marathon", app_path + "?embed=app.tasks")["app"];
    CHECK(app["instances"] == 3);
    CHECK(app["tasksRunning"] == 3);
    CHECK(app["env"]["MESSAGE"] == "bye");
    CHECK(site.States(id, "web") == std::multiset<std::string>{"STARTED", "STARTED", "STARTED"});

    const std::string rid = site.AnyResourceOf(id, "web");
    const auto stop =
        site.api.Call("POST", "/deployments/" + id + "/resources/" + rid + "/actions", Json{{"type", "stop"}}.dump());
    INFO(stop.body);
    REQUIRE(stop.status == 202);
    CHECK(site.WaitForStates(id, "web", "STOPPED", 3));
    const Json stopped = site.Site("marathon", app_path)["app"];
    CHECK(stopped["instances"] == 0);
    CHECK(stopped["labels"]["ORCH_STOPPED_INSTANCES"] == "3");

    const auto start =
        site.api.Call("POST", "/deployments/" + id + "/resources/" + rid + "/actions", Json{{"type", "start"}}.dump());
    INFO(start.body);
    REQUIRE(start.status == 202);
    CHECK(site.WaitForStates(id, "web", "STARTED", 3));
    CHECK(site.Site("marathon", app_path)["app"]["instances"] == 3);
    const auto after = site.api.Get(id);
    REQUIRE(after);
    CHECK((*after)["status"] == "UPDATE_COMPLETE");  // actions change resources, not the deployment

    const Json rejected = site.sim.Rejections();
    INFO(rejected.dump(2));
    CHECK(rejected.empty());
}

TEST_CASE(
    "PUT changes a Chronos job's command and schedule, stop and start disable and enable it", "[e2e][sites][parity]"
) {
    ParitySite site;
    const std::string id = site.api.Create(kChronosTemplate, Json::object());
    REQUIRE_FALSE(id.empty());
    const Json created = site.api.WaitFor(id, {"CREATE_COMPLETE", "CREATE_FAILED"}, kTimeout);
    INFO(created.dump());
    REQUIRE(created["status"] == "CREATE_COMPLETE");
    const std::string search = "/v1/scheduler/jobs/search?name=" + id;
    Json jobs = site.Site("chronos", search);
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0]["command"] == "echo first");

    const Json changed = {{"command", "echo second"}, {"schedule", "R/2015-01-01T00:00:00Z/PT2H"}};
    const auto put = site.api.Call(
        "PUT", "/deployments/" + id, Json{{"template", kChronosTemplate}, {"parameters", changed}}.dump()
    );
    INFO(put.body);
    REQUIRE(put.status == 202);
    const Json updated = site.api.WaitFor(id, {"UPDATE_COMPLETE", "UPDATE_FAILED"}, kTimeout);
    INFO(updated.dump());
    REQUIRE(updated["status"] == "UPDATE_COMPLETE");
    jobs = site.Site("chronos", search);
    REQUIRE(jobs.size() == 1);  // the same job, replaced, not a second one
    CHECK(jobs[0]["command"] == "echo second");
    CHECK(jobs[0]["schedule"] == "R/2015-01-01T00:00:00Z/PT2H");

    const std::string rid = site.AnyResourceOf(id, "job");
    INFO(site.api.Call("GET", "/deployments/" + id + "/resources").body);
    REQUIRE_FALSE(rid.empty());
    // Stop disables the job (kept on the site, never run), start enables it again.
    const auto stop =
        site.api.Call("POST", "/deployments/" + id + "/resources/" + rid + "/actions", Json{{"type", "stop"}}.dump());
    INFO(stop.body);
    REQUIRE(stop.status == 202);
    CHECK(site.WaitForStates(id, "job", "STOPPED", 1));
    jobs = site.Site("chronos", search);
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0].value("disabled", false));
    const auto start =
        site.api.Call("POST", "/deployments/" + id + "/resources/" + rid + "/actions", Json{{"type", "start"}}.dump());
    REQUIRE(start.status == 202);
    CHECK(site.WaitForStates(id, "job", "STARTED", 1));
    CHECK_FALSE(site.Site("chronos", search)[0].value("disabled", true));
    CHECK(site.api.WaitFor(id, {"UPDATE_COMPLETE", "UPDATE_FAILED"}, kTimeout)["status"] == "UPDATE_COMPLETE");
    const Json rejected = site.sim.Rejections();
    INFO(rejected.dump(2));
    CHECK(rejected.empty());
}
