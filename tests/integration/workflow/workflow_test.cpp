#include "workflow_harness.hpp"

#include <catch2/catch.hpp>

#include <thread>

using orch::connectors::FailureKind;
using orch::domain::Status;
using orch::test::WorkflowHarness;

namespace {

std::vector<orch::workflow::Attempt> AttemptsOf(WorkflowHarness& h, const std::string& id) {
    auto st = h.workflow_store.Load(id);
    REQUIRE(st);
    REQUIRE(st->has_value());
    return (*st)->attempts;
}

}  // namespace

TEST_CASE("a deployment goes from CREATE_IN_PROGRESS to CREATE_COMPLETE with outputs", "[workflow]") {
    WorkflowHarness h({"site-a"});
    h.connector.SetBehaviour("site-a", {.polls_until_ready = 3});
    const auto id = h.Create(orch::Json{{"count", 2}});
    const auto d = h.WaitFor(id, {Status::kCreateComplete, Status::kCreateFailed});
    CHECK(d.status == Status::kCreateComplete);
    CHECK(d.status_reason.empty());
    CHECK(d.task == orch::domain::Task::kNone);
    CHECK(d.cloud_provider_name == "site-a");
    CHECK(d.cloud_provider_endpoint["deploymentType"] == "MARATHON");
    CHECK(d.physical_id == "/orch-" + id);
    CHECK(d.outputs["endpoint"] == "http://site-a.example/app");
    auto resources = h.deployments.ListResources(id, std::nullopt, 0, 10, {});
    REQUIRE(resources);
    REQUIRE(resources->items.size() == 2);
    for (const auto& r : resources->items) {
        CHECK(r.state == orch::domain::NodeState::kStarted);
    }
    const auto attempts = AttemptsOf(h, id);
    REQUIRE(attempts.size() == 1);
    CHECK(attempts[0].outcome == orch::domain::AttemptOutcome::kSucceeded);
    CHECK(h.connector.CreateCalls("site-a", id) == 1);
}

TEST_CASE("the engine reports each finished step and its running count to its observer", "[workflow][metrics]") {
    WorkflowHarness h({"site-a"});
    h.connector.SetBehaviour("site-a", {.polls_until_ready = 2});
    const auto id = h.Create();
    CHECK(h.WaitFor(id, {Status::kCreateComplete, Status::kCreateFailed}).status == Status::kCreateComplete);
    REQUIRE(h.WaitIdle());
    h.engine->Stop();  // every step has reported once Stop returns
    const auto steps = h.observer.steps();
    REQUIRE_FALSE(steps.empty());
    bool committed = false;
    for (const auto& step : steps) {
        CHECK(step.kind != "unknown");
        CHECK(step.seconds >= 0);
        committed = committed || step.outcome == orch::workflow::StepOutcome::kCommit;
    }
    CHECK(committed);
    const auto running = h.observer.running();
    REQUIRE(running.size() == 2 * steps.size());  // up when a step starts, down when it ends
    CHECK(running.back() == 0);
}

TEST_CASE("a failing site is cleaned up and the next ranked site is used", "[workflow]") {
    WorkflowHarness h({"site-a", "site-b"});
    h.connector.SetBehaviour("site-a", {.poll_fails = FailureKind::kTryAnotherSite});
    const auto id = h.Create();
    const auto d = h.WaitFor(id, {Status::kCreateComplete, Status::kCreateFailed});
    CHECK(d.status == Status::kCreateComplete);
    CHECK(d.cloud_provider_name == "site-b");
    const auto attempts = AttemptsOf(h, id);
    REQUIRE(attempts.size() == 2);
    CHECK(attempts[0].provider_id == "site-a");
    CHECK(attempts[0].outcome == orch::domain::AttemptOutcome::kFailed);
    CHECK(attempts[0].reason == "fake failure reported by site-a");
    CHECK(attempts[1].outcome == orch::domain::AttemptOutcome::kSucceeded);
    REQUIRE(h.WaitIdle());
    CHECK(h.connector.Live() == std::set<std::string>{"site-b/" + id});  // site-a's attempt was removed
}

TEST_CASE("when every site fails, statusReason keeps every attempt's site and reason", "[workflow]") {
    WorkflowHarness h({"site-a", "site-b"});
    h.connector.SetBehaviour("site-a", {.create_fails = FailureKind::kTryAnotherSite});
    h.connector.SetBehaviour("site-b", {.poll_fails = FailureKind::kTryAnotherSite});
    const auto id = h.Create();
    const auto d = h.WaitFor(id, {Status::kCreateComplete, Status::kCreateFailed});
    CHECK(d.status == Status::kCreateFailed);
    CHECK(d.status_reason.rfind("Retries on cloud providers exhausted. Error list is:\n", 0) == 0);
    CHECK(
        d.status_reason.find(
            "Cloud Provider site-a\nCloud Provider Service site-a-marathon\n\nfake create failure on site-a"
        ) != std::string::npos
    );
    CHECK(d.status_reason.find("Cloud Provider site-b\n") != std::string::npos);
    CHECK(d.status_reason.find("fake failure reported by site-b") != std::string::npos);
    REQUIRE(h.WaitIdle());
    CHECK(h.connector.Live().empty());
}

TEST_CASE("maxProvidersRetry bounds the sites tried", "[workflow]") {
    WorkflowHarness h({"site-a", "site-b", "site-c"});
    h.connector.SetBehaviour("site-a", {.create_fails = FailureKind::kTryAnotherSite});
    orch::domain::RequestOptions options;
    options.max_providers_retry = 1;
    const auto id = h.Create(orch::Json::object(), options);
    const auto d = h.WaitFor(id, {Status::kCreateComplete, Status::kCreateFailed});
    CHECK(d.status == Status::kCreateFailed);
    CHECK(AttemptsOf(h, id).size() == 1);
    CHECK(h.connector.CreateCalls("site-b", id) == 0);
}

TEST_CASE("a user error on a site fails at once without trying others", "[workflow]") {
    WorkflowHarness h({"site-a", "site-b"});
    h.connector.SetBehaviour("site-a", {.create_fails = FailureKind::kUserError});
    const auto id = h.Create();
    const auto d = h.WaitFor(id, {Status::kCreateComplete, Status::kCreateFailed});
    CHECK(d.status == Status::kCreateFailed);
    CHECK(d.status_reason == "fake create failure on site-a");
    CHECK(h.connector.CreateCalls("site-b", id) == 0);
}

TEST_CASE("a user error reported while polling finishes the attempt and removes what it left", "[workflow]") {
    WorkflowHarness h({"site-a", "site-b"});
    h.connector.SetBehaviour("site-a", {.poll_fails = FailureKind::kUserError});
    const auto id = h.Create();
    const auto d = h.WaitFor(id, {Status::kCreateComplete, Status::kCreateFailed});
    CHECK(d.status == Status::kCreateFailed);
    CHECK(d.status_reason == "fake failure reported by site-a");
    const auto attempts = AttemptsOf(h, id);
    REQUIRE(attempts.size() == 1);
    CHECK(attempts[0].outcome == orch::domain::AttemptOutcome::kFailed);
    CHECK(attempts[0].reason == "fake failure reported by site-a");
    CHECK(h.connector.CreateCalls("site-b", id) == 0);
    REQUIRE(h.WaitIdle());
    CHECK(h.connector.Live().empty());
}

TEST_CASE("keepLastAttempt keeps what a poll-time user error left on the site", "[workflow]") {
    WorkflowHarness h({"site-a"});
    h.connector.SetBehaviour("site-a", {.poll_fails = FailureKind::kUserError});
    orch::domain::RequestOptions options;
    options.keep_last_attempt = true;
    const auto id = h.Create(orch::Json::object(), options);
    const auto d = h.WaitFor(id, {Status::kCreateComplete, Status::kCreateFailed});
    CHECK(d.status == Status::kCreateFailed);
    REQUIRE(AttemptsOf(h, id).size() == 1);
    CHECK(AttemptsOf(h, id)[0].outcome == orch::domain::AttemptOutcome::kFailed);
    REQUIRE(h.WaitIdle());
    CHECK(h.connector.Live() == std::set<std::string>{"site-a/" + id});
}

TEST_CASE("delete removes everything and ends in DELETE_COMPLETE", "[workflow]") {
    WorkflowHarness h({"site-a"});
    const auto id = h.Create();
    h.WaitFor(id, {Status::kCreateComplete});
    REQUIRE(h.deployments.BeginDelete(id, false));
    h.engine->Wake();
    const auto d = h.WaitFor(id, {Status::kDeleteComplete, Status::kDeleteFailed});
    CHECK(d.status == Status::kDeleteComplete);
    REQUIRE(h.WaitIdle());
    CHECK(h.connector.Live().empty());
    auto resources = h.deployments.ListResources(id, std::nullopt, 0, 10, {});
    REQUIRE(resources);
    for (const auto& r : resources->items) {
        CHECK(r.state == orch::domain::NodeState::kDeleted);
    }
    auto again = h.deployments.BeginDelete(id, false);
    REQUIRE_FALSE(again);
    CHECK(again.error().message == "Deployment already in DELETE_COMPLETE state.");
}

TEST_CASE("deleting while the create is still running leaks nothing", "[workflow]") {
    WorkflowHarness h({"site-a"});
    h.connector.SetBehaviour("site-a", {.polls_until_ready = 1000, .create_delay = std::chrono::milliseconds(300)});
    const auto id = h.Create();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // Create is in flight
    REQUIRE(h.deployments.BeginDelete(id, false));
    h.engine->Wake();
    const auto d = h.WaitFor(id, {Status::kDeleteComplete, Status::kDeleteFailed});
    CHECK(d.status == Status::kDeleteComplete);
    REQUIRE(h.WaitIdle(std::chrono::seconds(20)));
    CHECK(h.connector.Live().empty());
}

TEST_CASE("objects re-made after the delete call are deleted again by the delete poll", "[workflow]") {
    WorkflowHarness h({"site-a"});
    const auto id = h.Create();
    h.WaitFor(id, {Status::kCreateComplete});
    // The first Delete finds the objects back at once (a create in flight re-made them): without a
    // repeated Delete the poll would wait for delete_wait (10 min) and end DELETE_FAILED.
    h.connector.SetBehaviour("site-a", {.deletes_without_effect = 1});
    REQUIRE(h.deployments.BeginDelete(id, false));
    h.engine->Wake();
    const auto d = h.WaitFor(id, {Status::kDeleteComplete, Status::kDeleteFailed}, std::chrono::seconds(20));
    CHECK(d.status == Status::kDeleteComplete);
    REQUIRE(h.WaitIdle(std::chrono::seconds(20)));
    CHECK(h.connector.Live().empty());
}

TEST_CASE("two engines on one database deploy each deployment exactly once", "[workflow]") {
    WorkflowHarness h({"site-a"});
    auto second = h.StartEngine("engine-b");
    std::vector<std::string> ids;
    for (int i = 0; i < 60; ++i) {
        ids.push_back(h.Create());
    }
    for (const auto& id : ids) {
        CHECK(h.WaitFor(id, {Status::kCreateComplete, Status::kCreateFailed}).status == Status::kCreateComplete);
        CHECK(h.connector.CreateCalls("site-a", id) == 1);
    }
    second->Stop();
}

TEST_CASE("a job whose worker died is taken over after its lease", "[workflow]") {
    WorkflowHarness h({"site-a"});
    h.engine->Stop();
    const auto id = h.Create();
    // A "crashed" process claims the job and never finishes it.
    auto claimed = h.workflow_store.Claim("crashed-process", 10, std::chrono::milliseconds(500));
    REQUIRE(claimed);
    REQUIRE(claimed->size() == 1);
    auto survivor = h.StartEngine("survivor");
    const auto d = h.WaitFor(id, {Status::kCreateComplete, Status::kCreateFailed});
    CHECK(d.status == Status::kCreateComplete);
    // The crashed process cannot commit anything any more.
    auto late = h.workflow_store.Commit((*claimed)[0], "crashed-process", {});
    REQUIRE_FALSE(late);
    CHECK(late.error().code == orch::ErrorCode::kConflict);
    survivor->Stop();
    h.engine = h.StartEngine("engine-a");
}

TEST_CASE("an expired overall deadline fails the deployment with the original's message", "[workflow]") {
    WorkflowHarness h({"site-a"});
    h.connector.SetBehaviour("site-a", {.polls_until_ready = 100000});
    orch::domain::RequestOptions options;
    options.timeout_mins = 1;
    const auto id = h.Create(orch::Json::object(), options);
    h.WaitFor(id, {Status::kCreateInProgress});
    {
        pqxx::connection c(h.db.dsn());
        pqxx::work tx(c);
        tx.exec_params("UPDATE deployments SET deadline = now() - interval '1 second' WHERE id = $1::uuid", id);
        tx.commit();
    }
    const auto d = h.WaitFor(id, {Status::kCreateFailed, Status::kCreateComplete});
    CHECK(d.status == Status::kCreateFailed);
    CHECK(d.status_reason == "Timeout: Maximum execution time exceeded.");
}

TEST_CASE("a Delete that reports everything removed ends the delete without waiting for Poll", "[workflow]") {
    WorkflowHarness h({"site-a"});
    // Like Slurm: the jobs ended, Delete has nothing to cancel (kComplete), and the site keeps
    // listing them as they were, so Poll never says "gone". Polling until delete_wait (10 min)
    // would end DELETE_FAILED.
    h.connector.SetBehaviour("site-a", {.ended_work_stays_listed = true});
    const auto id = h.Create();
    h.WaitFor(id, {Status::kCreateComplete});
    REQUIRE(h.deployments.BeginDelete(id, false));
    h.engine->Wake();
    const auto d = h.WaitFor(id, {Status::kDeleteComplete, Status::kDeleteFailed}, std::chrono::seconds(20));
    CHECK(d.status == Status::kDeleteComplete);
    REQUIRE(h.WaitIdle(std::chrono::seconds(20)));
    CHECK(h.connector.Live().empty());
}

TEST_CASE("an update passes the placement chosen at create time to the connector", "[workflow]") {
    WorkflowHarness h({"site-a", "site-b"});
    h.connector.SetBehaviour("site-a", {.create_fails = FailureKind::kTryAnotherSite});
    const auto id = h.Create(orch::Json{{"count", 1}});
    REQUIRE(h.WaitFor(id, {Status::kCreateComplete, Status::kCreateFailed}).status == Status::kCreateComplete);
    orch::store::UpdateRequest update;
    update.id = id;
    update.template_text = "tosca_definitions_version: tosca_simple_yaml_1_0";
    update.parameters = orch::Json{{"count", 2}};
    REQUIRE(h.deployments.BeginUpdate(update));
    h.engine->Wake();
    CHECK(h.WaitFor(id, {Status::kUpdateComplete, Status::kUpdateFailed}).status == Status::kUpdateComplete);
    // Site B's choice (the site the deployment runs on), not site A's nor none: new VM instances
    // are created with the flavor and image placement picked.
    const auto placements = h.connector.UpdatePlacements(id);
    REQUIRE(placements.count("app") == 1);
    CHECK(placements.at("app").flavor_id == "flavor-site-b");
    CHECK(placements.at("app").image_id == "image-site-b");
}

TEST_CASE("an update hands the connector the removal_list as the instances' physical ids", "[workflow]") {
    WorkflowHarness h({"site-a"});
    const auto id = h.Create(orch::Json{{"count", 1}});
    REQUIRE(h.WaitFor(id, {Status::kCreateComplete, Status::kCreateFailed}).status == Status::kCreateComplete);
    auto st = h.workflow_store.Load(id);
    REQUIRE(st);
    REQUIRE(st->has_value());
    REQUIRE((*st)->resources.size() == 1);
    const auto& resource = (*st)->resources[0];
    REQUIRE(!resource.physical_id.empty());
    orch::store::UpdateRequest update;
    update.id = id;
    update.template_text = "tosca_definitions_version: tosca_simple_yaml_1_0";
    // The API checked the removal_list against the deployment's resources: it names their uuids.
    update.parameters = orch::Json{{"count", 0}, {"removal_list", {resource.id, "not-a-resource"}}};
    update.removed_resource_ids = {resource.id};
    REQUIRE(h.deployments.BeginUpdate(update));
    h.engine->Wake();
    CHECK(h.WaitFor(id, {Status::kUpdateComplete, Status::kUpdateFailed}).status == Status::kUpdateComplete);
    // The site knows its instances by physical id (a server, an IM VM), never by our uuids.
    CHECK(h.connector.UpdateRemovals(id) == std::vector<std::string>{resource.physical_id, "not-a-resource"});
}
