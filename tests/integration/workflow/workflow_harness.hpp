#pragma once

// A real database, the real stores, engine and steps; fake template service, placer and sites.
#include <common/clock.hpp>
#include <common/http_client.hpp>
#include <orchestrator/store/pg_deployment_store.hpp>
#include <orchestrator/store/pg_pool.hpp>
#include <orchestrator/store/pg_workflow_store.hpp>
#include <orchestrator/workflow/engine.hpp>

#include <memory>

#include "test_support/fakes.hpp"
#include "test_support/test_env.hpp"

namespace orch::test {

class WorkflowHarness {
public:
    explicit WorkflowHarness(std::vector<std::string> sites);
    ~WorkflowHarness();

    /// A second engine (another "process") on the same database.
    std::unique_ptr<workflow::Engine> StartEngine(const std::string& owner);

    /// Creates a deployment as POST /deployments does (minus HTTP) and returns its id.
    std::string Create(const Json& parameters = Json::object(), domain::RequestOptions options = {});
    /// Waits until the deployment reaches one of `statuses`; returns the final deployment.
    domain::Deployment WaitFor(const std::string& id, std::initializer_list<domain::Status> statuses,
                               std::chrono::milliseconds timeout = std::chrono::seconds(30));
    /// Waits until no job is left (side jobs included).
    bool WaitIdle(std::chrono::milliseconds timeout = std::chrono::seconds(30));

    TestDatabase db;
    store::PgPool pool;
    store::PgDeploymentStore deployments;
    store::PgWorkflowStore workflow_store;
    FakeTemplateService templates;
    FakePlacer placer;
    FakeConnector connector;
    FakeRegistry registry;
    FakeCredentials credentials;
    std::unique_ptr<http::Client> http;
    SystemClock clock;  ///< this rig runs the real engine against real time
    workflow::StepServices services;
    std::unique_ptr<workflow::Engine> engine;
};

}  // namespace orch::test
