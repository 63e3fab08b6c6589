// The Slurm connector against a real slurmctld/slurmd/slurmrestd (22.05, REST v0.0.38, JWT) with
// one node "gpu01" that has two fake V100 GPUs (gres), partition "gpu".
#include "slurm_rig.hpp"

#include <connectors/slurm_connector.hpp>
#include <connectors/slurm_job.hpp>

#include <catch2/catch.hpp>
#include <test_support/test_env.hpp>

#include <filesystem>
#include <string>

using namespace std::chrono_literals;
using orch::Json;
using orch::connectors::Deletion;
using orch::connectors::DeployRequest;
using orch::connectors::Failure;
using orch::connectors::FailureKind;
using orch::connectors::Handle;
using orch::connectors::InstanceStatus;
using orch::connectors::Observation;
using orch::connectors::Phase;
using orch::connectors::SlurmConnector;
namespace rig = orch::test::slurm;

namespace {

struct Deployment {
    orch::tosca::DeploymentSpec spec;
    DeployRequest request;

    explicit Deployment(std::vector<orch::tosca::NodeSpec> nodes) {
        spec.kind = orch::tosca::DeploymentKind::kSlurm;
        spec.nodes = std::move(nodes);
        request.deployment_id = rig::NewDeploymentId();
        request.spec = &spec;
        request.target = rig::Target();
    }
};

Handle MustCreate(SlurmConnector& connector, const DeployRequest& request) {
    auto created = connector.Create(request);
    if (auto* failure = std::get_if<Failure>(&created)) {
        FAIL("Create failed: " << failure->message);
    }
    return std::get<Handle>(created);
}

bool Finished(const Observation& o) {
    return o.phase != Phase::kInProgress;
}

std::string JobOutput(const std::string& name, const std::string& job_id) {
    return orch::test::ReadFile(rig::TheRig().dir + "/jobs/" + name + "-" + job_id + ".out");
}

// A live REST view of one job, independent of the connector under test.
std::string JobState(const std::string& job_id) {
    orch::http::ClientRequest request;
    request.url = rig::TheRig().url + "/slurm/v0.0.38/job/" + job_id;
    request.headers = {{"X-SLURM-USER-NAME", rig::TheRig().user}, {"X-SLURM-USER-TOKEN", rig::TheRig().token}};
    auto response = rig::Client().Send(request);
    REQUIRE(response);
    auto body = orch::ParseJson(response->body);
    REQUIRE(body);
    REQUIRE((*body)["jobs"].size() == 1);
    return (*body)["jobs"][0]["job_state"].get<std::string>();
}

}  // namespace

TEST_CASE("a GPU batch job runs on the fake V100s with its arguments and environment intact", "[slurm]") {
    auto node =
        rig::JobNode("train", "echo \"epochs=$EPOCHS gpus=$SLURM_GPUS_ON_NODE node=$ORCH_NODE\"; printf '[%s]'");
    node.arguments = {"it's", "two words", "$HOME"};
    node.environment = {{"EPOCHS", "3"}};
    node.resources.gpu.count = 1;
    node.resources.gpu.model = "Tesla V100";
    node.resources.cpus = 1.5;
    Deployment d({node});
    SlurmConnector connector(rig::Clients());

    const Handle handle = MustCreate(connector, d.request);
    const Observation done = rig::PollUntil(connector, handle, d.spec, Finished, 60s);
    INFO(done.reason);
    REQUIRE(done.phase == Phase::kReady);
    REQUIRE(done.instances.size() == 1);
    const auto& instance = done.instances[0];
    CHECK(instance.node == "train");
    CHECK(instance.state == InstanceStatus::kStopped);
    CHECK(instance.attributes["job_state"] == "COMPLETED");
    CHECK(instance.attributes["nodes"] == "gpu01");
    CHECK(instance.attributes["exit_status"] == "exit code 0");
    CHECK(done.attributes.at("train")["hosts"][0] == "gpu01");

    const std::string name = orch::connectors::SlurmJobName(d.request.deployment_id, "train", 0);
    const std::string output = JobOutput(name, instance.physical_id);
    CHECK(output == "epochs=3 gpus=1 node=train\n[it's][two words][$HOME]");
}

TEST_CASE("a multi-line script runs with its own interpreter and gets the node's arguments", "[slurm]") {
    auto node = rig::JobNode("script", "#!/usr/bin/env python3\nimport sys\nprint(sys.argv[1:])\n# ORCH_SCRIPT_END\n");
    node.arguments = {"one two", "it's"};
    Deployment d({node});
    SlurmConnector connector(rig::Clients());
    const Handle handle = MustCreate(connector, d.request);
    const Observation done = rig::PollUntil(connector, handle, d.spec, Finished, 60s);
    INFO(done.reason);
    REQUIRE(done.phase == Phase::kReady);
    const std::string name = orch::connectors::SlurmJobName(d.request.deployment_id, "script", 0);
    CHECK(JobOutput(name, done.instances.at(0).physical_id) == "['one two', \"it's\"]\n");
}

TEST_CASE("an impossible GPU request is refused at submission as try-another-site", "[slurm]") {
    SlurmConnector connector(rig::Clients());
    SECTION("more GPUs than any node has") {
        auto node = rig::JobNode("big", "true");
        node.resources.gpu.count = 4;
        node.resources.gpu.model = "V100";
        Deployment d({node});
        auto created = connector.Create(d.request);
        REQUIRE(std::holds_alternative<Failure>(created));
        CHECK(std::get<Failure>(created).kind == FailureKind::kTryAnotherSite);
        CHECK_THAT(
            std::get<Failure>(created).message, Catch::Contains("Requested node configuration is not available")
        );
    }
    SECTION("a GPU model the site does not have") {
        auto node = rig::JobNode("a100", "true");
        node.resources.gpu.count = 1;
        node.resources.gpu.model = "A100";
        Deployment d({node});
        auto created = connector.Create(d.request);
        REQUIRE(std::holds_alternative<Failure>(created));
        CHECK(std::get<Failure>(created).kind == FailureKind::kTryAnotherSite);
    }
}

TEST_CASE("when a later job is refused the jobs already submitted are cancelled", "[slurm]") {
    auto fine = rig::JobNode("fine", "sleep 300");
    auto impossible = rig::JobNode("impossible", "true");
    impossible.resources.gpu.count = 3;
    Deployment d({fine, impossible});
    SlurmConnector connector(rig::Clients());

    auto created = connector.Create(d.request);
    REQUIRE(std::holds_alternative<Failure>(created));
    CHECK(std::get<Failure>(created).kind == FailureKind::kTryAnotherSite);

    // The controller's own listing: our first job exists and is cancelled.
    orch::http::ClientRequest list;
    list.url = rig::TheRig().url + "/slurm/v0.0.38/jobs";
    list.headers = {{"X-SLURM-USER-NAME", rig::TheRig().user}, {"X-SLURM-USER-TOKEN", rig::TheRig().token}};
    auto response = rig::Client().Send(list);
    REQUIRE(response);
    auto body = orch::ParseJson(response->body);
    REQUIRE(body);
    const std::string name = orch::connectors::SlurmJobName(d.request.deployment_id, "fine", 0);
    int seen = 0;
    for (const auto& job : (*body)["jobs"]) {
        if (job["name"] == name) {
            ++seen;
            CHECK((job["job_state"] == "CANCELLED" || job["job_state"] == "COMPLETING"));
        }
    }
    CHECK(seen == 1);
}

TEST_CASE("Delete cancels a running job and Poll then reports it gone", "[slurm]") {
    Deployment d({rig::JobNode("service", "sleep 300")});
    SlurmConnector connector(rig::Clients());
    const Handle handle = MustCreate(connector, d.request);

    const Observation running = rig::PollUntil(
        connector,
        handle,
        d.spec,
        [](const Observation& o) {
            return o.instances.size() == 1 && o.instances[0].state == InstanceStatus::kStarted;
        },
        60s
    );
    REQUIRE(running.phase == Phase::kInProgress);
    REQUIRE(running.instances[0].attributes["job_state"] == "RUNNING");

    auto deleted = connector.Delete(handle, false);
    REQUIRE(std::holds_alternative<Deletion>(deleted));
    const Observation gone = rig::PollUntil(
        connector, handle, d.spec, [](const Observation& o) { return o.phase == Phase::kGone; }, 30s
    );
    CHECK(gone.phase == Phase::kGone);
    CHECK(JobState(running.instances[0].physical_id) == "CANCELLED");

    // A second delete of what is already gone is fine.
    auto again = connector.Delete(handle, false);
    REQUIRE(std::holds_alternative<Deletion>(again));
    CHECK(std::get<Deletion>(again) == Deletion::kComplete);
}

TEST_CASE("re-running Create finds the jobs it submitted instead of submitting twice", "[slurm]") {
    auto node = rig::JobNode("worker", "sleep 300");
    node.count = 2;
    Deployment d({node});
    SlurmConnector connector(rig::Clients());
    const Handle first = MustCreate(connector, d.request);
    const Handle second = MustCreate(connector, d.request);
    REQUIRE(first.state["jobs"].size() == 2);
    CHECK(first.state["jobs"] == second.state["jobs"]);
    auto deleted = connector.Delete(first, false);
    REQUIRE(std::holds_alternative<Deletion>(deleted));
    CHECK(rig::PollUntil(connector, first, d.spec, Finished, 30s).phase == Phase::kGone);
}

TEST_CASE("a job that exits non-zero fails the deployment as a user error with its exit code", "[slurm]") {
    Deployment d({rig::JobNode("broken", "echo failing; exit 3")});
    SlurmConnector connector(rig::Clients());
    const Handle handle = MustCreate(connector, d.request);
    const Observation done = rig::PollUntil(connector, handle, d.spec, Finished, 60s);
    REQUIRE(done.phase == Phase::kFailed);
    CHECK(done.failure == FailureKind::kUserError);
    CHECK_THAT(done.reason, Catch::Contains("FAILED") && Catch::Contains("exit code 3"));
    CHECK(done.instances[0].state == InstanceStatus::kError);
}

TEST_CASE("Update submits added instances and cancels removed ones", "[slurm]") {
    auto node = rig::JobNode("pool", "sleep 300");
    node.count = 1;
    Deployment d({node});
    SlurmConnector connector(rig::Clients());
    const Handle one = MustCreate(connector, d.request);

    d.spec.nodes[0].count = 3;
    auto grown = connector.Update(one, d.request);
    REQUIRE(std::holds_alternative<Handle>(grown));
    const Handle three = std::get<Handle>(grown);
    REQUIRE(three.state["jobs"].size() == 3);
    CHECK(three.state["jobs"][0] == one.state["jobs"][0]);

    // Remove instance 1 by its job id and shrink to 2: instances 0 and 2 stay.
    const std::string removed_id = std::to_string(three.state["jobs"][1]["job_id"].get<std::int64_t>());
    d.spec.nodes[0].count = 2;
    d.spec.nodes[0].removal_list = {removed_id};
    auto shrunk = connector.Update(three, d.request);
    REQUIRE(std::holds_alternative<Handle>(shrunk));
    const Handle two = std::get<Handle>(shrunk);
    REQUIRE(two.state["jobs"].size() == 2);
    CHECK(two.state["jobs"][0]["index"] == 0);
    CHECK(two.state["jobs"][1]["index"] == 2);
    const std::string state = JobState(removed_id);
    CHECK((state == "CANCELLED" || state == "COMPLETING"));

    // Growing again reuses the freed index 1 with a new job.
    d.spec.nodes[0].removal_list.clear();
    d.spec.nodes[0].count = 3;
    auto regrown = connector.Update(two, d.request);
    REQUIRE(std::holds_alternative<Handle>(regrown));
    const Json& regrown_jobs = std::get<Handle>(regrown).state["jobs"];
    REQUIRE(regrown_jobs.size() == 3);
    CHECK(regrown_jobs[2]["index"] == 1);
    CHECK(std::to_string(regrown_jobs[2]["job_id"].get<std::int64_t>()) != removed_id);

    auto deleted = connector.Delete(std::get<Handle>(regrown), false);
    REQUIRE(std::holds_alternative<Deletion>(deleted));
    CHECK(rig::PollUntil(connector, std::get<Handle>(regrown), d.spec, Finished, 30s).phase == Phase::kGone);
}

TEST_CASE("site and credential problems come back as typed failures", "[slurm]") {
    Deployment d({rig::JobNode("job", "true")});
    SlurmConnector connector(rig::Clients(), {.call = {.timeout = 5s}});

    SECTION("a token the controller rejects") {
        d.request.target.credentials.bearer_token = "not-a-jwt";
        auto created = connector.Create(d.request);
        REQUIRE(std::holds_alternative<Failure>(created));
        CHECK(std::get<Failure>(created).kind == FailureKind::kTryAnotherSite);
        CHECK_THAT(std::get<Failure>(created).message, Catch::Contains("JWT"));
    }
    SECTION("a partition the site does not have") {
        d.request.target.options["partition"] = "no-such-partition";
        auto created = connector.Create(d.request);
        REQUIRE(std::holds_alternative<Failure>(created));
        CHECK(std::get<Failure>(created).kind == FailureKind::kTryAnotherSite);
        CHECK_THAT(std::get<Failure>(created).message, Catch::Contains("Invalid partition"));
    }
    SECTION("nothing listening at the endpoint") {
        d.request.target.endpoint = "http://127.0.0.1:" + std::to_string(orch::test::FreePort());
        auto created = connector.Create(d.request);
        REQUIRE(std::holds_alternative<Failure>(created));
        CHECK(std::get<Failure>(created).kind == FailureKind::kRetryHere);
    }
    SECTION("a node without a command") {
        d.spec.nodes[0].command.clear();
        auto created = connector.Create(d.request);
        REQUIRE(std::holds_alternative<Failure>(created));
        CHECK(std::get<Failure>(created).kind == FailureKind::kUserError);
        CHECK_THAT(std::get<Failure>(created).message, Catch::Contains("'job'"));
    }
    SECTION("start and stop are not something a batch job can do") {
        auto acted = connector.Act(Handle{}, "1", "start");
        REQUIRE(std::holds_alternative<Failure>(acted));
        CHECK(std::get<Failure>(acted).kind == FailureKind::kUserError);
    }
}
