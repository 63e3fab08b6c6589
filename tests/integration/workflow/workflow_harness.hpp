#pragma once

// A real database, the real stores, engine and steps; fake template service, placer and sites.
#include "test_support/fakes.hpp"
#include "test_support/test_env.hpp"

#include <common/clock.hpp>
#include <common/http_client.hpp>
#include <orchestrator/store/pg_deployment_store.hpp>
#include <orchestrator/store/pg_pool.hpp>
#include <orchestrator/store/pg_workflow_store.hpp>
#include <orchestrator/workflow/engine.hpp>

#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

namespace orch::test {

/// Records what the engine reports to its observer (EngineObserver).
class RecordingEngineObserver final : public workflow::EngineObserver {
   public:
    struct Step {
        std::string kind;
        workflow::StepOutcome outcome;
        double seconds;
    };
    void ReadyJobs(std::size_t) override {}
    void RunningSteps(std::size_t count) override {
        const std::lock_guard lock(mutex_);
        running_.push_back(count);
    }
    void StepFinished(std::string_view kind, workflow::StepOutcome outcome, double seconds) override {
        const std::lock_guard lock(mutex_);
        steps_.push_back({std::string(kind), outcome, seconds});
    }
    std::vector<Step> steps() const {
        const std::lock_guard lock(mutex_);
        return steps_;
    }
    std::vector<std::size_t> running() const {
        const std::lock_guard lock(mutex_);
        return running_;
    }

   private:
    mutable std::mutex mutex_;
    std::vector<Step> steps_;
    std::vector<std::size_t> running_;
};

class WorkflowHarness {
   public:
    explicit WorkflowHarness(std::vector<std::string> sites);
    ~WorkflowHarness();

    /// A second engine (another "process") on the same database.
    std::unique_ptr<workflow::Engine> StartEngine(const std::string& owner);

    /// Creates a deployment as POST /deployments does (minus HTTP) and returns its id.
    std::string Create(const Json& parameters = Json::object(), domain::RequestOptions options = {});
    /// Waits until the deployment reaches one of `statuses`; returns the final deployment.
    domain::Deployment WaitFor(
        const std::string& id,
        std::initializer_list<domain::Status> statuses,
        std::chrono::milliseconds timeout = std::chrono::seconds(30)
    );
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
    RecordingEngineObserver observer;  ///< every engine StartEngine makes reports here
    std::unique_ptr<workflow::Engine> engine;
};

}  // namespace orch::test
