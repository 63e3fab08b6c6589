#pragma once

// The rig of the deploy steps' tests (deploy_steps*_test.cpp): the API creates deployments (the
// handler harness) and the engine runs their steps one due job at a time on the test's thread.
#include "test_support/handler_harness.hpp"

#include <common/http_client.hpp>
#include <orchestrator/auth/principal.hpp>
#include <orchestrator/domain/attempt.hpp>
#include <orchestrator/workflow/deployment_steps.hpp>
#include <orchestrator/workflow/engine.hpp>
#include <orchestrator/workflow/site_version_cache.hpp>

#include <catch2/catch.hpp>

namespace orch::test::deploy_steps {

using std::chrono::minutes;
using std::chrono::seconds;

inline orch::workflow::StepOptions Options() {
    orch::workflow::StepOptions o;
    o.first_poll = seconds(1);
    o.max_poll = seconds(30);
    o.max_transient_retries = 2;
    o.crash_loop_timeout = minutes(2);
    return o;
}

// The API creates deployments (the handler harness); the engine runs their steps on this thread.
struct Rig {
    orch::test::HandlerHarness api;
    orch::test::FakePlacer placer{{"SITE-A", "SITE-B"}};
    orch::test::FakeConnector connector;
    orch::test::FakeRegistry registry{connector};
    orch::test::FakeCredentials credentials;
    std::unique_ptr<orch::http::Client> http = std::move(*orch::http::MakeClient({}));
    orch::workflow::StepServices services{
        api.stores.workflow,
        api.templates,
        placer,
        registry,
        credentials,
        *http,
        api.clock,
        nullptr,
        nullptr,
        Options()};
    orch::workflow::Engine engine{api.stores.workflow, {.owner = "unit-test"}};

    Rig() {
        services.resolve_outputs = [](const auto&, const auto&) {
            return orch::tosca::OutputValues{};
        };
        orch::workflow::RegisterDeploymentSteps(engine, services);
    }

    /// Runs every job due now (bounded: a step that requeues itself at once is a failure).
    int RunDue() {
        int ran = 0;
        while (engine.RunOneDue().value()) {
            REQUIRE(++ran < 100);
        }
        return ran;
    }

    std::string Create(Json body, const std::string& group = "users") {
        body["template"] = "tosca_definitions_version: x";
        body["userGroup"] = group;  // the harness' callers are members of "users"
        const auto res = api.Call("POST", "/deployments", body.dump());
        INFO(res.body);
        REQUIRE(res.status == 201);
        return Json::parse(res.body).value("uuid", "");
    }

    orch::domain::Deployment Get(const std::string& id) { return api.stores.deployments.Get(id).value().value(); }
    std::vector<orch::domain::Attempt> Attempts(const std::string& id) {
        return api.stores.deployments.ListAttempts(id).value();
    }
    /// The deployment's events in the durable log, in order.
    std::vector<orch::domain::Event> Events(const std::string& id) {
        orch::auth::Principal local;
        local.local = true;
        return api.stores.events
            .After({.owner = orch::auth::OwnerFilter::VisibleTo(local), .deployment_id = id, .limit = 1000})
            .value();
    }
    std::vector<std::string> EventTypes(const std::string& id) {
        std::vector<std::string> out;
        for (const auto& e : Events(id)) {
            out.emplace_back(orch::domain::EventTypeName(e.type));
        }
        return out;
    }
};

}  // namespace orch::test::deploy_steps
