#include "workflow_harness.hpp"

#include <common/uuid.hpp>
#include <orchestrator/service/new_deployment.hpp>
#include <orchestrator/store/migrations.hpp>
#include <orchestrator/workflow/deployment_steps.hpp>

#include <stdexcept>
#include <thread>

namespace orch::test {
namespace {

workflow::StepOptions FastOptions() {
    workflow::StepOptions o;
    o.first_poll = std::chrono::milliseconds(50);
    o.max_poll = std::chrono::milliseconds(200);
    o.create_call_timeout = std::chrono::milliseconds(500);
    o.late_sweep_interval = std::chrono::milliseconds(100);  // the sweeps run before WaitIdle ends
    return o;
}

}  // namespace

WorkflowHarness::WorkflowHarness(std::vector<std::string> sites)
    : pool(store::PgPoolOptions{.dsn = db.dsn(), .size = 6}),
      deployments(pool),
      workflow_store(pool),
      templates(SimpleSpec()),
      placer(std::move(sites)),
      registry(connector),
      http(std::move(*http::MakeClient({}))),
      services{
          workflow_store, templates, placer, registry, credentials, *http, clock, nullptr, nullptr, FastOptions()} {
    if (!store::ApplyMigrations(pool)) {
        throw std::runtime_error("migrations failed");
    }
    services.resolve_outputs = [](const tosca::DeploymentSpec&, const std::map<std::string, Json>& attrs) {
        tosca::OutputValues out;
        if (const auto it = attrs.find("app"); it != attrs.end()) {
            out.values["endpoint"] = it->second.value("endpoint", "");
        }
        return out;
    };
    engine = StartEngine("engine-a");
}

WorkflowHarness::~WorkflowHarness() {
    engine->Stop();
}

std::unique_ptr<workflow::Engine> WorkflowHarness::StartEngine(const std::string& owner) {
    workflow::EngineOptions options;
    options.owner = owner;
    options.workers = 4;
    options.lease = std::chrono::milliseconds(2000);
    options.idle_poll = std::chrono::milliseconds(20);
    options.observer = &observer;
    auto e = std::make_unique<workflow::Engine>(workflow_store, options);
    workflow::RegisterDeploymentSteps(*e, services);
    e->Start();
    return e;
}

std::string WorkflowHarness::Create(const Json& parameters, domain::RequestOptions options) {
    auto spec = templates.Build("tosca_definitions_version: tosca_simple_yaml_1_0", parameters, parameters);
    store::NewDeployment created;
    auto& d = created.deployment;
    d.id = SequentialUuid();
    d.created_at = std::chrono::system_clock::now();
    d.updated_at = d.created_at;
    d.owner = domain::Owner{"https://iam.test/", "alice"};
    d.user_group = "g1";
    d.template_text = "tosca_definitions_version: tosca_simple_yaml_1_0";
    d.parameters = parameters;
    d.options = options;
    d.kind = orch::tosca::DeploymentKind::kMarathon;
    service::SummariseRequest(*spec, d.req_cpus, d.req_mem_mb, d.req_gpus, d.req_instances);
    created.resources = service::ResourcesFor(*spec, d.id, d.created_at);
    if (!deployments.Create(created)) {
        throw std::runtime_error("create failed");
    }
    engine->Wake();
    return d.id;
}

domain::Deployment WorkflowHarness::WaitFor(
    const std::string& id, std::initializer_list<domain::Status> statuses, std::chrono::milliseconds timeout
) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    domain::Deployment last;
    while (std::chrono::steady_clock::now() < deadline) {
        auto d = deployments.Get(id);
        if (d && *d) {
            last = **d;
            for (auto s : statuses) {
                if (last.status == s) {
                    return last;
                }
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    throw std::runtime_error(
        "deployment " + id + " stuck in " + std::string(domain::StatusName(last.status)) + ": " + last.status_reason
    );
}

bool WorkflowHarness::WaitIdle(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        auto depth = workflow_store.QueueDepth();
        if (depth && depth->first == 0 && depth->second == 0) {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
}

}  // namespace orch::test
