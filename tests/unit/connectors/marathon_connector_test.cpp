#include "connector_test_util.hpp"

#include <connectors/marathon_connector.hpp>
#include <connectors/workload.hpp>

#include <catch2/catch.hpp>

using namespace orch::connectors;
using namespace orch::connectors::test;
using orch::Json;
using orch::tosca::DeploymentKind;

namespace {

constexpr char kDeployment[] = "11ed8ab3-6a40-968a-82b7-62f0862dbe46";

orch::tosca::NodeSpec WebNode() {
    auto node = AppNode("web_app", std::string(kMarathonAppType));
    node.ports.push_back({8080, 80, "tcp", "", "http"});
    node.environment = {{"MODE", "prod"}};
    node.volumes.push_back({"/data", "", "RW", "/data:rw"});
    node.volumes.push_back({"/ext", "", "RW", "store:/ext:rw:dvdi:rexray"});
    return node;
}

orch::tosca::NodeSpec GpuNode(int gpus, const std::string& model) {
    auto node = AppNode("trainer", std::string(kMarathonAppType), "tensorflow/tensorflow:latest-gpu");
    node.resources.gpu.count = gpus;
    node.resources.gpu.model = model;
    node.command = "python train.py";
    node.arguments = {"--epochs", "10"};
    node.privileged = true;
    node.ports.push_back({6006, std::nullopt, "tcp", "", ""});
    return node;
}

struct Fixture {
    std::unique_ptr<orch::sim::SiteSim> site = StillSite();
    SimHttpClient client{*site};
    SharedClientFactory factory{client};
    MarathonConnector connector{factory};
    SiteTarget target = Target(
        TargetKind::kMarathon,
        "http://marathon.sim:8080",
        {{"load_balancer_ips", {"lb.sim.example"}},
         {"gpu_attribute", "gpu_model"},
         {"local_volumes_host_base_path", "/srv/vols/"}}
    );
};

}  // namespace

TEST_CASE("Marathon bodies follow the Docker/Mesos containerizer rules and pass the schema", "[connectors][marathon]") {
    const auto spec = SpecOf(DeploymentKind::kMarathon, {WebNode(), GpuNode(1, "Tesla V100")});
    auto target = Target(
        TargetKind::kMarathon,
        "http://m",
        {{"gpu_attribute", "gpu_type"}, {"local_volumes_host_base_path", "/srv/vols/"}}
    );
    const Json group = Ok(BuildMarathonGroup(Request(kDeployment, spec, target)));
    CHECK(group["id"] == std::string("/") + kDeployment);
    const Json& web = group["apps"][0];
    CHECK(web["id"] == "web-app");
    CHECK(web["container"]["type"] == "DOCKER");
    CHECK(web["networks"][0]["mode"] == "container/bridge");
    CHECK(web["container"]["portMappings"][0]["containerPort"] == 8080);
    CHECK(web["container"]["portMappings"][0]["servicePort"] == 80);
    CHECK(web["labels"]["HAPROXY_GROUP"] == "external");
    CHECK(web["container"]["volumes"][0]["hostPath"] == std::string("/srv/vols/") + kDeployment + "/web-app-0");
    CHECK(web["container"]["volumes"][1]["external"]["name"] == std::string(kDeployment) + "-store");
    CHECK(web["container"]["volumes"][1]["external"]["options"]["dvdi/driver"] == "rexray");
    const Json& gpu = group["apps"][1];
    CHECK(gpu["gpus"] == 1);
    CHECK(gpu["container"]["type"] == "MESOS");
    CHECK_FALSE(gpu["container"]["docker"].contains("privileged"));
    CHECK(gpu["networks"][0]["mode"] == "host");
    CHECK(gpu["portDefinitions"][0]["port"] == 0);
    CHECK(gpu["cmd"] == "python train.py '--epochs' '10'");
    CHECK(gpu["constraints"][0] == Json({"gpu_type", "LIKE", "(?i).*Tesla[-_ ]?V100.*"}));
    auto violations = Schemas()->Validate("Group.json", group);
    REQUIRE(violations);
    CHECK(violations->empty());
    CHECK(orch::sim::MarathonLikeMatches(gpu["constraints"][0][2], "tesla-v100-pcie-16gb"));
    CHECK_FALSE(orch::sim::MarathonLikeMatches(gpu["constraints"][0][2], "a100"));
}

TEST_CASE("Marathon: create, poll to ready with outputs, scale, delete, gone", "[connectors][marathon]") {
    Fixture f;
    auto web = WebNode();
    auto spec = SpecOf(DeploymentKind::kMarathon, {web, GpuNode(1, "V100")});
    const Handle handle = Ok(f.connector.Create(Request(kDeployment, spec, f.target)));
    CHECK(handle.physical_id == std::string("/") + kDeployment);
    CHECK(f.client.Sent()[0].headers[0].second == "Bearer token-1");

    Observation obs = Ok(f.connector.Poll(handle, spec));
    CHECK(obs.phase == Phase::kInProgress);
    CHECK(obs.reason.find("0/1 tasks running") != std::string::npos);
    obs = PollUntilSettled(f.connector, handle, spec, *f.site);
    REQUIRE(obs.phase == Phase::kReady);
    CHECK(obs.instances.size() == 2);
    CHECK(obs.instances[0].state == InstanceStatus::kStarted);
    CHECK(obs.attributes["web_app"]["load_balancer_ips"][0] == "lb.sim.example");
    const Json ports = obs.attributes["web_app_runtime"]["host"]["publish_ports"];
    CHECK(ports[0]["source"] == 8080);
    CHECK(ports[0]["target"] == 80);
    CHECK(obs.attributes["trainer"]["publish_ports"][0]["target"].get<int>() >= 10000);  // assigned service port

    spec.nodes[0].count = 3;
    Ok(f.connector.Update(handle, Request(kDeployment, spec, f.target)));
    obs = PollUntilSettled(f.connector, handle, spec, *f.site);
    REQUIRE(obs.phase == Phase::kReady);
    CHECK(obs.instances.size() == 4);

    CHECK(Ok(f.connector.Delete(handle, false)) == Deletion::kInProgress);  // Marathon kills asynchronously
    obs = Ok(f.connector.Poll(handle, spec));
    CHECK(obs.phase == Phase::kInProgress);  // tasks are being killed
    obs = PollUntilSettled(f.connector, handle, spec, *f.site);
    CHECK(obs.phase == Phase::kGone);
    const Json objects = f.site->Objects()["marathon"];
    CHECK(objects["apps"].empty());
    CHECK(objects["tasks"].empty());
    CHECK(f.site->Rejections().empty());
    CHECK(Ok(f.connector.Delete(handle, false)) == Deletion::kComplete);  // deleting again: nothing left
}

TEST_CASE("Marathon create is idempotent by deployment id", "[connectors][marathon]") {
    Fixture f;
    const auto spec = SpecOf(DeploymentKind::kMarathon, {WebNode()});
    Ok(f.connector.Create(Request(kDeployment, spec, f.target)));
    const Handle again = Ok(f.connector.Create(Request(kDeployment, spec, f.target)));
    CHECK(again.physical_id == std::string("/") + kDeployment);
    CHECK(f.site->Objects()["marathon"]["groups"].size() == 1);
}

TEST_CASE("Marathon: an app no agent can host fails over, task failures are the reason", "[connectors][marathon]") {
    Fixture f;
    const auto big = SpecOf(DeploymentKind::kMarathon, {GpuNode(3, "")});
    const Handle handle = Ok(f.connector.Create(Request(kDeployment, big, f.target)));
    const Observation obs = Ok(f.connector.Poll(handle, big));
    REQUIRE(obs.phase == Phase::kFailed);
    CHECK(obs.failure == FailureKind::kTryAnotherSite);
    CHECK(obs.reason.find("InsufficientGpus") != std::string::npos);

    const auto model = SpecOf(DeploymentKind::kMarathon, {GpuNode(1, "A100")});
    const Handle h2 = Ok(f.connector.Create(Request("dep-model", model, f.target)));
    const Observation unmatched = Ok(f.connector.Poll(h2, model));
    CHECK(unmatched.phase == Phase::kFailed);
    CHECK(unmatched.reason.find("UnfulfilledConstraint") != std::string::npos);

    auto crashing = WebNode();
    crashing.environment["SIM_TASK_FAILURE"] = "Failed to pull image nginx:1.25";
    const auto crash_spec = SpecOf(DeploymentKind::kMarathon, {crashing});
    const Handle h3 = Ok(f.connector.Create(Request("dep-crash", crash_spec, f.target)));
    f.site->AdvanceClock(1.5);
    const Observation crashed = Ok(f.connector.Poll(h3, crash_spec));
    CHECK(crashed.phase == Phase::kInProgress);  // Marathon keeps retrying; the workflow's timeout decides
    CHECK(crashed.reason.find("last task failure: Failed to pull image nginx:1.25") != std::string::npos);
    CHECK(crashed.log.find("Failed to pull image") != std::string::npos);
    // ...and says so in a typed way, with Marathon's own message, for the workflow's crash-loop limit.
    CHECK(crashed.cannot_start);
    REQUIRE(crashed.site_message);
    INFO(*crashed.site_message);
    CHECK(crashed.site_message->rfind("app /dep-crash/", 0) == 0);
    CHECK(crashed.site_message->ends_with(": tasks keep failing: Failed to pull image nginx:1.25"));

    // A healthy app never says it cannot start.
    const auto fine_spec = SpecOf(DeploymentKind::kMarathon, {WebNode()});
    const Handle h4 = Ok(f.connector.Create(Request("dep-fine", fine_spec, f.target)));
    f.site->AdvanceClock(1.5);
    const Observation fine = Ok(f.connector.Poll(h4, fine_spec));
    CHECK_FALSE(fine.cannot_start);
    CHECK_FALSE(fine.site_message);
}

TEST_CASE("Marathon failures are classified", "[connectors][marathon]") {
    Fixture f;
    const auto spec = SpecOf(DeploymentKind::kMarathon, {WebNode()});
    const auto request = Request(kDeployment, spec, f.target);

    REQUIRE(f.site->AddFault({{"api", "marathon"}, {"method", "POST"}, {"kind", "status"}, {"status", 503}}));
    CHECK(Fails(f.connector.Create(request)).kind == FailureKind::kRetryHere);
    REQUIRE(f.site->AddFault({{"api", "marathon"}, {"kind", "reset"}}));
    const Failure reset = Fails(f.connector.Create(request));
    CHECK(reset.kind == FailureKind::kRetryHere);
    CHECK(reset.message.find("connection reset") != std::string::npos);
    REQUIRE(f.site->AddFault({{"api", "marathon"}, {"kind", "slow"}, {"delay_ms", 60000}}));
    CHECK(Fails(f.connector.Create(request)).kind == FailureKind::kRetryHere);

    const Handle handle = Ok(f.connector.Create(request));
    REQUIRE(f.site->AddFault({{"api", "marathon"}, {"method", "GET"}, {"kind", "malformed"}}));
    const Failure garbled = Fails(f.connector.Poll(handle, spec));
    CHECK(garbled.kind == FailureKind::kRetryHere);
    CHECK(garbled.message.find("malformed JSON") != std::string::npos);

    auto bad = WebNode();
    bad.constraints = {{"hostname", "NEAR", "x"}};
    const auto bad_spec = SpecOf(DeploymentKind::kMarathon, {bad});
    const Failure invalid = Fails(f.connector.Create(Request("other", bad_spec, f.target)));
    CHECK(invalid.kind == FailureKind::kUserError);
    CHECK(invalid.message.find("422") != std::string::npos);
    CHECK(invalid.message.find("/apps(0)/constraints(0)(1)") != std::string::npos);

    auto no_gpu_site = f.target;
    no_gpu_site.options["gpu_support"] = false;
    const auto gpu_spec = SpecOf(DeploymentKind::kMarathon, {GpuNode(1, "")});
    CHECK(Fails(f.connector.Create(Request("g", gpu_spec, no_gpu_site))).kind == FailureKind::kTryAnotherSite);
    auto imageless = WebNode();
    imageless.image.clear();
    const auto imageless_spec = SpecOf(DeploymentKind::kMarathon, {imageless});
    CHECK(Fails(f.connector.Create(Request("i", imageless_spec, f.target))).kind == FailureKind::kUserError);
    CHECK(Fails(f.connector.Act(handle, "x", "start")).kind == FailureKind::kUserError);
}

TEST_CASE("Marathon rejects credentials it does not know: try another site", "[connectors][marathon]") {
    auto config = orch::sim::SimConfig::Default();
    config.tokens = {"the-right-token"};
    auto site = StillSite(config);
    SimHttpClient client(*site);
    SharedClientFactory factory(client);
    MarathonConnector connector(factory);
    const auto spec = SpecOf(DeploymentKind::kMarathon, {WebNode()});
    auto target = Target(TargetKind::kMarathon, "http://marathon.sim:8080");
    const Failure refused = Fails(connector.Create(Request(kDeployment, spec, target)));
    CHECK(refused.kind == FailureKind::kTryAnotherSite);
    CHECK(refused.message.find("401") != std::string::npos);
    target.credentials.bearer_token = "the-right-token";
    Ok(connector.Create(Request(kDeployment, spec, target)));
    target.credentials.bearer_token.clear();
    target.credentials.username = "u";
    target.credentials.password = "p";
    CHECK(Fails(connector.Create(Request("x", spec, target))).kind == FailureKind::kTryAnotherSite);
    CHECK(client.Sent().back().headers[0].second == "Basic dTpw");
}

TEST_CASE("Marathon stop runs an app on 0 instances keeping its count, start restores it", "[connectors][marathon]") {
    Fixture f;
    auto web = WebNode();
    web.count = 2;
    const auto spec = SpecOf(DeploymentKind::kMarathon, {web});
    const Handle handle = Ok(f.connector.Create(Request(kDeployment, spec, f.target)));
    Observation obs = PollUntilSettled(f.connector, handle, spec, *f.site);
    REQUIRE(obs.phase == Phase::kReady);
    REQUIRE(obs.instances.size() == 2);
    const std::string task = obs.instances[1].physical_id;
    const std::string app_path = std::string("/v2/apps/") + kDeployment + "/web-app";
    const auto app_on_site = [&] {
        return Json::parse(
            f.site->Handle(orch::sim::SimApi::kMarathon, orch::sim::MakeSimRequest("GET", app_path, "")).body
        )["app"];
    };

    CHECK(Ok(f.connector.Act(handle, task, "stop")));
    CHECK(app_on_site()["instances"] == 0);
    CHECK(app_on_site()["labels"]["ORCH_STOPPED_INSTANCES"] == "2");
    CHECK(app_on_site()["labels"]["HAPROXY_GROUP"] == "external");  // the app's own labels stay
    obs = PollUntilSettled(f.connector, handle, spec, *f.site);
    REQUIRE(obs.phase == Phase::kReady);
    REQUIRE(obs.instances.size() == 2);  // the stopped instances, by index, without tasks
    CHECK(obs.instances[0].state == InstanceStatus::kStopped);
    CHECK(obs.instances[1].index == 1);
    CHECK(obs.instances[1].physical_id.empty());
    CHECK(Ok(f.connector.Act(handle, task, "stop")));  // stopping again keeps the count
    CHECK(app_on_site()["labels"]["ORCH_STOPPED_INSTANCES"] == "2");

    CHECK(Ok(f.connector.Act(handle, task, "start")));
    CHECK(app_on_site()["instances"] == 2);
    CHECK_FALSE(app_on_site()["labels"].contains("ORCH_STOPPED_INSTANCES"));
    obs = PollUntilSettled(f.connector, handle, spec, *f.site);
    REQUIRE(obs.phase == Phase::kReady);
    REQUIRE(obs.instances.size() == 2);
    CHECK(obs.instances[0].state == InstanceStatus::kStarted);
    CHECK(obs.instances[0].physical_id != task);
    CHECK(f.site->Rejections().empty());  // every PUT passed the simulator's schema check

    CHECK(Fails(f.connector.Act(handle, task, "restart")).kind == FailureKind::kUserError);
    CHECK(Fails(f.connector.Act(handle, "other-app.1234", "stop")).kind == FailureKind::kUserError);
}

TEST_CASE("Marathon names its version from /v2/info, an unreachable site cannot", "[connectors][marathon]") {
    Fixture f;
    const auto version = f.connector.SiteVersion(f.target);
    REQUIRE(std::holds_alternative<std::string>(version));
    CHECK(std::get<std::string>(version) == "Marathon 1.7.236");  // what site-sim's /v2/info says
    SiteTarget nowhere = f.target;
    nowhere.endpoint = "http://nowhere.example:8080";
    CHECK(std::holds_alternative<orch::connectors::Failure>(f.connector.SiteVersion(nowhere)));
}
