#include "connector_test_util.hpp"

#include <connectors/chronos_connector.hpp>
#include <connectors/workload.hpp>

#include <catch2/catch.hpp>

using namespace orch::connectors;
using namespace orch::connectors::test;
using orch::Json;
using orch::tosca::DeploymentKind;

namespace {

constexpr char kDeployment[] = "22ed8ab3-6a40-968a-82b7-62f0862dbe46";

orch::tosca::NodeSpec JobNode(const std::string& name) {
    auto node = AppNode(name, std::string(kChronosJobType), "indigodatacloud/job");
    node.command = "/bin/bash run.sh";
    node.volumes.push_back({"/tmp/folder", "", "RW", "/tmp/folder:rw"});
    node.properties = {{"retries", 1}, {"description", "Execute Application"}, {"epsilon", "PT12S"}};
    return node;
}

// The two jobs of the original's chronos_2_jobs.yaml: a scheduled one and a dependent uploader.
orch::tosca::DeploymentSpec TwoJobs() {
    auto first = JobNode("chronos_job");
    first.schedule = "R1//PT1M";
    first.environment = {{"ONEDATA_SPACE", "space"}};
    first.constraints = {{"hostname", "CLUSTER", "cpu-agent-1.sim"}};
    auto upload = JobNode("chronos_job_upload");
    upload.depends_on = {"chronos_job"};
    upload.privileged = true;
    return SpecOf(DeploymentKind::kChronos, {upload, first});  // template order is not dependency order
}

struct Fixture {
    std::unique_ptr<orch::sim::SiteSim> site = StillSite();
    SimHttpClient client{*site};
    SharedClientFactory factory{client};
    ChronosConnector connector{factory};
    SiteTarget target = Target(TargetKind::kChronos, "http://chronos.sim:4400", {{"gpu_support", true}});
};

}  // namespace

TEST_CASE("Chronos jobs are planned parents first with the original's field mapping", "[connectors][chronos]") {
    const auto spec = TwoJobs();
    const auto plans = Ok(BuildChronosJobs(Request(kDeployment, spec, Target(TargetKind::kChronos, "http://c"))));
    REQUIRE(plans.size() == 2);
    const Json& first = plans[0].body;
    CHECK(plans[0].node == "chronos_job");
    CHECK_FALSE(plans[0].dependent);
    CHECK(first["name"] == std::string(kDeployment) + "-chronos_job");
    CHECK(first["schedule"] == "R1//PT1M");
    CHECK(first["epsilon"] == "PT12S");
    CHECK(first["retries"] == 1);
    CHECK(first["mem"] == 512.0);
    CHECK(first["container"]["type"] == "DOCKER");
    CHECK(first["container"]["volumes"][0]["hostPath"] == std::string("/tmp/") + kDeployment + "-chronos_job");
    CHECK(first["constraints"][0] == Json({"hostname", "EQUALS", "cpu-agent-1.sim"}));
    CHECK(first["environmentVariables"][0] == Json({{"name", "ONEDATA_SPACE"}, {"value", "space"}}));
    const Json& second = plans[1].body;
    CHECK(plans[1].dependent);
    CHECK(second["parents"] == Json::array({first["name"]}));
    CHECK_FALSE(second.contains("schedule"));
    CHECK(second["container"]["parameters"][0] == Json({{"key", "privileged"}, {"value", "true"}}));
    CHECK(orch::sim::ValidateChronosJob(first, false).empty());
    CHECK(orch::sim::ValidateChronosJob(second, true).empty());
}

TEST_CASE("Chronos: dependent jobs run in order, ready after every first success, delete", "[connectors][chronos]") {
    Fixture f;
    const auto spec = TwoJobs();
    const Handle handle = Ok(f.connector.Create(Request(kDeployment, spec, f.target)));
    CHECK(f.client.Count("POST", "/v1/scheduler/iso8601") == 1);
    CHECK(f.client.Count("POST", "/v1/scheduler/dependency") == 1);
    Observation obs = Ok(f.connector.Poll(handle, spec));
    CHECK(obs.phase == Phase::kInProgress);
    CHECK(obs.reason.find("waiting for the first successful run") != std::string::npos);
    obs = PollUntilSettled(f.connector, handle, spec, *f.site);
    REQUIRE(obs.phase == Phase::kReady);
    REQUIRE(obs.instances.size() == 2);
    CHECK(obs.instances[0].state == InstanceStatus::kStarted);
    CHECK(obs.instances[1].attributes["successCount"] == 1);

    Ok(f.connector.Create(Request(kDeployment, spec, f.target)));  // a re-run submits nothing new
    CHECK(f.client.Count("POST", "/v1/scheduler/") == 2);

    CHECK(Ok(f.connector.Delete(handle, false)) == Deletion::kInProgress);
    CHECK(Ok(f.connector.Poll(handle, spec)).phase == Phase::kGone);
    CHECK(f.site->Objects()["chronos"]["jobs"].empty());
    CHECK(f.site->Rejections().empty());
}

TEST_CASE("Chronos: GPUs only where the site supports them, with the Mesos containerizer", "[connectors][chronos]") {
    Fixture f;
    auto gpu = JobNode("gpu_job");
    gpu.resources.gpu.count = 1;
    gpu.resources.gpu.model = "V100";
    const auto spec = SpecOf(DeploymentKind::kChronos, {gpu});
    auto no_gpu = f.target;
    no_gpu.options["gpu_support"] = false;
    const Failure refused = Fails(f.connector.Create(Request(kDeployment, spec, no_gpu)));
    CHECK(refused.kind == FailureKind::kTryAnotherSite);
    CHECK(refused.message.find("does not support GPUs") != std::string::npos);

    const auto plans = Ok(BuildChronosJobs(Request(kDeployment, spec, f.target)));
    CHECK(plans[0].body["gpus"] == 1);
    CHECK(plans[0].body["container"]["type"] == "MESOS");
    CHECK(plans[0].body["constraints"][0][1] == "LIKE");
    const Handle handle = Ok(f.connector.Create(Request(kDeployment, spec, f.target)));
    CHECK(PollUntilSettled(f.connector, handle, spec, *f.site).phase == Phase::kReady);
}

TEST_CASE("Chronos: a job that exhausts its retries fails the deployment", "[connectors][chronos]") {
    Fixture f;
    auto failing = JobNode("failing");
    failing.environment = {{"SIM_EXIT_CODE", "2"}};
    const auto spec = SpecOf(DeploymentKind::kChronos, {failing});
    const Handle handle = Ok(f.connector.Create(Request(kDeployment, spec, f.target)));
    const Observation obs = PollUntilSettled(f.connector, handle, spec, *f.site);
    REQUIRE(obs.phase == Phase::kFailed);
    CHECK(obs.failure == FailureKind::kTryAnotherSite);
    CHECK(obs.reason.find("failed to execute") != std::string::npos);
    Ok(f.connector.Delete(handle, true));
}

TEST_CASE("Chronos: user errors, endpoints with or without /v1, faults", "[connectors][chronos]") {
    Fixture f;
    auto both = JobNode("both");
    both.schedule = "R/2030-01-01T00:00:00Z/PT1H";
    both.depends_on = {"parent"};
    auto parent = JobNode("parent");
    const auto both_spec = SpecOf(DeploymentKind::kChronos, {parent, both});
    CHECK(Fails(f.connector.Create(Request(kDeployment, both_spec, f.target))).kind == FailureKind::kUserError);
    auto no_command = JobNode("nocmd");
    no_command.command.clear();
    const auto no_command_spec = SpecOf(DeploymentKind::kChronos, {no_command});
    CHECK(Fails(f.connector.Create(Request(kDeployment, no_command_spec, f.target))).kind == FailureKind::kUserError);
    auto cyclic_a = JobNode("a");
    auto cyclic_b = JobNode("b");
    cyclic_a.depends_on = {"b"};
    cyclic_b.depends_on = {"a"};
    const auto cyclic = SpecOf(DeploymentKind::kChronos, {cyclic_a, cyclic_b});
    CHECK(Fails(f.connector.Create(Request(kDeployment, cyclic, f.target))).kind == FailureKind::kUserError);
    auto bad_schedule = JobNode("sched");
    bad_schedule.schedule = "tomorrow";
    const auto bad_schedule_spec = SpecOf(DeploymentKind::kChronos, {bad_schedule});
    const Failure rejected = Fails(f.connector.Create(Request(kDeployment, bad_schedule_spec, f.target)));
    CHECK(rejected.kind == FailureKind::kUserError);
    CHECK(rejected.message.find("ISO 8601") != std::string::npos);

    const auto spec = SpecOf(DeploymentKind::kChronos, {JobNode("plain")});
    auto with_v1 = f.target;
    with_v1.endpoint = "http://chronos.sim:4400/v1/";
    Ok(f.connector.Create(Request("dep-v1", spec, with_v1)));
    CHECK(f.client.Sent().back().url == "http://chronos.sim:4400/v1/scheduler/iso8601");

    REQUIRE(f.site->AddFault({{"api", "chronos"}, {"kind", "status"}, {"status", 500}}));
    CHECK(Fails(f.connector.Create(Request("dep-500", spec, f.target))).kind == FailureKind::kRetryHere);
    REQUIRE(f.site->AddFault({{"api", "chronos"}, {"kind", "malformed"}}));
    CHECK(Fails(f.connector.Create(Request("dep-bad-json", spec, f.target))).kind == FailureKind::kRetryHere);
}

TEST_CASE("Chronos: stop disables a job and start enables it again, counters kept", "[connectors][chronos][actions]") {
    Fixture f;
    const auto spec = TwoJobs();
    const Handle handle = Ok(f.connector.Create(Request(kDeployment, spec, f.target)));
    REQUIRE(PollUntilSettled(f.connector, handle, spec, *f.site).phase == Phase::kReady);
    const std::string scheduled = std::string(kDeployment) + "-chronos_job";
    const std::string dependent = std::string(kDeployment) + "-chronos_job_upload";

    CHECK(Ok(f.connector.Act(handle, scheduled, "stop")));
    CHECK(Ok(f.connector.Act(handle, dependent, "stop")));  // posted back through /dependency
    CHECK(Ok(f.connector.Act(handle, dependent, "stop")));  // already stopped: nothing sent
    CHECK(f.client.Count("POST", "/v1/scheduler/dependency") == 2);
    Observation obs = Ok(f.connector.Poll(handle, spec));
    CHECK(obs.phase == Phase::kReady);  // stopped jobs are not waited for
    REQUIRE(obs.instances.size() == 2);
    for (const auto& instance : obs.instances) {
        CHECK(instance.state == InstanceStatus::kStopped);
    }

    CHECK(Ok(f.connector.Act(handle, scheduled, "start")));
    CHECK(Ok(f.connector.Act(handle, dependent, "start")));
    obs = Ok(f.connector.Poll(handle, spec));
    REQUIRE(obs.instances.size() == 2);
    for (const auto& instance : obs.instances) {
        CHECK(instance.state == InstanceStatus::kStarted);  // its earlier successful run counts
    }
    CHECK(f.site->Rejections().empty());

    CHECK(Fails(f.connector.Act(handle, "someone-elses-job", "stop")).kind == FailureKind::kUserError);
    CHECK(Fails(f.connector.Act(handle, scheduled, "reboot")).kind == FailureKind::kUserError);
}
