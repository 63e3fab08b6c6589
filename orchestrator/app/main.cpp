// Composition root: the only place where concrete types meet. Parse configuration, build the
// stores, auth, TOSCA engine, placement, connectors, workflow engine, routes and server; run until
// SIGINT/SIGTERM; then drain and exit 0.
#include "common/build_info.hpp"
#include "common/clock.hpp"
#include "common/config.hpp"
#include "common/log.hpp"
#include "orchestrator/api/deployment_routes.hpp"
#include "orchestrator/api/event_stream.hpp"
#include "orchestrator/api/http_file_notification_source.hpp"
#include "orchestrator/api/placement_routes.hpp"
#include "orchestrator/api/quota_routes.hpp"
#include "orchestrator/api/schedule_routes.hpp"
#include "orchestrator/api/system_routes.hpp"
#include "orchestrator/api/views.hpp"
#include "orchestrator/app/app_config.hpp"
#include "orchestrator/app/config_credentials.hpp"
#include "orchestrator/app/contextualisation_config.hpp"
#include "orchestrator/app/elastic_config.hpp"
#include "orchestrator/app/iam_client_config.hpp"
#include "orchestrator/app/idle_config.hpp"
#include "orchestrator/app/im_config.hpp"
#include "orchestrator/app/lease_config.hpp"
#include "orchestrator/app/openstack_config.hpp"
#include "orchestrator/app/routes.hpp"
#include "orchestrator/app/wiring_auth.hpp"
#include "orchestrator/app/wiring_connectors.hpp"
#include "orchestrator/app/wiring_iam_clients.hpp"
#include "orchestrator/app/wiring_idle.hpp"
#include "orchestrator/app/wiring_templates.hpp"
#include "orchestrator/app/workflow_config.hpp"
#include "orchestrator/auth/auth_setup.hpp"
#include "orchestrator/ops/admission_metrics.hpp"
#include "orchestrator/ops/callback_metrics.hpp"
#include "orchestrator/ops/lease_metrics.hpp"
#include "orchestrator/ops/metered_connector.hpp"
#include "orchestrator/ops/metered_placer.hpp"
#include "orchestrator/ops/request_metrics.hpp"
#include "orchestrator/ops/site_watch_metrics.hpp"
#include "orchestrator/ops/store_metrics.hpp"
#include "orchestrator/ops/workflow_metrics.hpp"
#include "orchestrator/placement/placer_factory.hpp"
#include "orchestrator/schedule/schedule_event_service.hpp"
#include "orchestrator/server/http_server.hpp"
#include "orchestrator/store/database_supervisor.hpp"
#include "orchestrator/store/pg_deployment_store.hpp"
#include "orchestrator/store/pg_elastic_store.hpp"
#include "orchestrator/store/pg_event_store.hpp"
#include "orchestrator/store/pg_iam_client_store.hpp"
#include "orchestrator/store/pg_idle_store.hpp"
#include "orchestrator/store/pg_lease_store.hpp"
#include "orchestrator/store/pg_schedule_store.hpp"
#include "orchestrator/store/pg_side_stores.hpp"
#include "orchestrator/store/pg_workflow_store.hpp"
#include "orchestrator/workflow/callback_deliverer.hpp"
#include "orchestrator/workflow/deployment_steps.hpp"
#include "orchestrator/workflow/engine.hpp"
#include "orchestrator/workflow/lease_sweep.hpp"
#include "tosca/engine.hpp"
#include "tosca/outputs.hpp"

#include <pthread.h>
#include <signal.h>  // NOLINT(modernize-deprecated-headers): POSIX sigwait and sigset_t

#include <cstdio>
#include <optional>
#include <string>
#include <thread>

namespace {

struct Args {
    std::string config_path;
    bool check_only = false;
};

// Signals are blocked in every thread and taken synchronously by one waiter, so shutdown runs
// as ordinary code instead of inside an async-signal handler.
sigset_t BlockShutdownSignals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    return set;
}

int Fail(const std::string& what, const orch::Error& error) {
    std::fprintf(stderr, "orchestrator: %s: %s\n", what.c_str(), error.message.c_str());
    return 2;
}

std::optional<Args> ParseArgs(int argc, char** argv, const std::map<std::string, std::string>& env) {
    Args args;
    if (const auto it = env.find("ORCHESTRATOR_CONFIG"); it != env.end()) {
        args.config_path = it->second;
    }
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--config" && i + 1 < argc) {
            args.config_path = argv[++i];
        } else if (arg == "--check-config") {
            args.check_only = true;
        } else if (arg == "--version") {
            std::printf(
                "orchestrator %s (%s)\n", orch::GetBuildInfo().version.data(), orch::GetBuildInfo().git_commit.data()
            );
            std::exit(0);
        } else {
            return std::nullopt;
        }
    }
    return args;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace orch;  // NOLINT(google-build-using-namespace): the composition root names everything
    const sigset_t signals = BlockShutdownSignals();
    ::signal(SIGPIPE, SIG_IGN);
    auto env = ProcessEnvironment();
    const auto args = ParseArgs(argc, argv, env);
    if (!args) {
        std::fprintf(stderr, "usage: orchestrator [--config FILE] [--check-config] [--version]\n");
        return 2;
    }
    auto config = app::LoadConfig(args->config_path, env);
    if (!config) {
        return Fail("configuration error", config.error());
    }
    config->tree.ApplyEnvironment(env, tosca::ToscaConfigAliases());
    log::SetLevel(config->log_level);

    auto http = http::MakeClient({});
    if (!http) {
        return Fail("HTTP client", http.error());
    }
    // Requests made because a user asked (callbacks, the imports and playbooks a template names,
    // IAM client registrations) go through the egress policy; requests to operator-configured
    // endpoints (IAM, CMDB, sites, monitoring) do not.
    http::ClientOptions user_directed;
    user_directed.egress = config->egress;
    auto user_directed_http = http::MakeClient(user_directed);
    if (!user_directed_http) {
        return Fail("HTTP client", user_directed_http.error());
    }
    store::PgPool pool(config->database);
    store::PgDeploymentStore deployments(pool);
    store::PgWorkflowStore workflow_store(pool);
    store::PgUsageSource usage(pool);
    store::PgSiteHistory history(pool);
    store::PgRefreshTokenStore refresh_tokens(pool);

    // The one real clock; everything below reads time through it.
    const SystemClock clock;
    auto auth = auth::SetUpAuth(config->tree, **http, refresh_tokens, clock);
    if (!auth) {
        return Fail("auth configuration error", auth.error());
    }
    auto template_wiring = app::MakeTemplateServices(config->tree, **user_directed_http, clock);
    if (!template_wiring) {
        return Fail("tosca configuration error", template_wiring.error());
    }
    auto& templates = *template_wiring->templates;

    auto placement = placement::MakePlacementServices(config->tree, **http, usage, history, clock);
    if (!placement) {
        return Fail("placement configuration error", placement.error());
    }
    auto im_options = app::ImOptionsFromConfig(config->tree);
    if (!im_options) {
        return Fail("im configuration error", im_options.error());
    }
    auto openstack_options = app::OpenStackOptionsFromConfig(config->tree);
    if (!openstack_options) {
        return Fail("openstack configuration error", openstack_options.error());
    }
    auto contextualisation = app::ParseContextualisationConfig(config->tree);
    if (!contextualisation) {
        return Fail("contextualisation configuration error", contextualisation.error());
    }
    // Interface playbooks are read as imports are (tosca.mirrors, tosca.allowed_hosts): a
    // template never makes the orchestrator fetch from anywhere else.
    contextualisation->ansible.read_playbook = [engine = template_wiring->engine.get()](const std::string& url) {
        return engine->ReadUrl(url);
    };
    // A native configuration that starts another node or ends makes the deployment's poll due,
    // so its progress and its end are seen at once, not at the next backed-off poll.
    contextualisation->connector.changed = [&workflow_store](const std::string& deployment_id) {
        if (auto due = workflow_store.PollNow(deployment_id); !due) {
            ORCH_LOG_WARN("cannot make a poll due", {{"deployment", deployment_id}, {"error", due.error().message}});
        }
    };
    const auto connector_wiring =
        app::MakeConnectors(**http, *im_options, *openstack_options, *contextualisation, clock);
    auto& registry = *connector_wiring.registry;
    auto credentials = app::ConfigCredentialSource::FromConfig(config->tree, auth->token_keeper.get());
    if (!credentials) {
        return Fail("credentials configuration error", credentials.error());
    }
    workflow::EngineOptions engine_options;
    engine_options.owner = config->instance_id;
    workflow::StepOptions step_options;
    if (auto parsed = app::ParseWorkflowConfig(config->tree, engine_options, step_options); !parsed) {
        return Fail("workflow configuration error", parsed.error());
    }
    auto elastic_config = app::ParseElasticConfig(config->tree);
    if (!elastic_config) {
        return Fail("elastic configuration error", elastic_config.error());
    }
    auto idle_config = app::ParseIdleConfig(config->tree);
    if (!idle_config) {
        return Fail("idle configuration error", idle_config.error());
    }
    auto site_watch_options = app::ParseSiteWatchConfig(config->tree);
    if (!site_watch_options) {
        return Fail("workflow configuration error", site_watch_options.error());
    }
    auto lease_config = app::ParseLeaseConfig(config->tree);
    if (!lease_config) {
        return Fail("leases configuration error", lease_config.error());
    }
    auto iam_client_config = app::ParseIamClientConfig(config->tree);
    if (!iam_client_config) {
        return Fail("iam_clients configuration error", iam_client_config.error());
    }
    // Per-deployment OAuth clients: registered through the egress policy, swept by any replica.
    store::PgIamClientStore iam_client_store(pool);
    auto iam_clients =
        app::MakeIamClients(*iam_client_config, *auth, **user_directed_http, iam_client_store, workflow_store, clock);
    if (!iam_clients) {
        return Fail("iam_clients configuration error", iam_clients.error());
    }
    if (args->check_only) {
        std::printf("configuration OK\n");
        return 0;
    }

    store::DatabaseSupervisor database(pool);
    database.Start();
    // Observability: every component records into the default registry that GET /metrics renders.
    auto& metrics_registry = metrics::DefaultRegistry();
    ops::MeteredPlacer metered_placer(*placement->placer, metrics_registry);
    ops::PlacementRejectionMetrics rejection_metrics(metrics_registry);
    placement->placer->SetObserver(&rejection_metrics);
    ops::MeteredConnectorRegistry metered_connectors(registry, metrics_registry);
    const ops::StoreMetrics store_metrics(pool, metrics_registry, std::chrono::seconds(5), clock);
    const auto authenticator_wiring = app::MakeAuthenticator(*auth, metrics_registry);
    auth::Authenticator& authenticator = *authenticator_wiring.authenticator;
    ops::WorkflowMetrics workflow_metrics(metrics_registry);
    engine_options.observer = &workflow_metrics;
    ops::AdmissionMetrics admission_metrics(metrics_registry);
    step_options.admission_observer = &admission_metrics;
    workflow::Engine engine(workflow_store, engine_options);
    workflow::SiteVersionCache site_versions(clock);
    ops::SiteWatchMetrics site_watch_metrics(metrics_registry);
    site_watch_options->observer = &site_watch_metrics;
    workflow::SiteWatcher site_watcher(
        workflow_store, *connector_wiring.site_clients, clock, *site_watch_options, [&engine] { engine.Wake(); }
    );
    workflow::StepServices services{
        workflow_store,
        templates,
        metered_placer,
        metered_connectors,
        *credentials,
        **user_directed_http,
        clock,
        [](const domain::Deployment& d) { return api::DeploymentView(d, ""); },
        [](const tosca::DeploymentSpec& spec, const std::map<std::string, Json>& attrs) {
            return tosca::EvaluateOutputs(spec, attrs);
        },
        step_options,
        &site_versions,
        placement->feed.get(),
        iam_clients->registry.get(),
        &site_watcher};
    workflow::RegisterDeploymentSteps(engine, services);
    ops::CallbackMetrics callback_metrics(metrics_registry);
    workflow::CallbackDeliverer callbacks(
        services,
        {.owner = config->instance_id,
         .workers = 2,
         .idle_poll = engine_options.idle_poll,
         .observer = &callback_metrics}
    );

    api::ApiContext api_context{
        deployments,
        templates,
        authenticator,
        auth->token_keeper.get(),
        auth->config,
        clock,
        &metered_placer,
        config->external_base_url,
        [&engine] { engine.Wake(); },
        config->egress.get(),
        config->deployment_limits};
    store::PgEventStore event_store(pool);
    api::EventFeed event_feed(event_store, config->events, clock);
    api_context.events = &event_feed;
    // Leases: the groups' terms for the API, and the sweep any replica runs (docs/lifecycle.md).
    app::SlaLeasePolicies lease_policies(lease_config->defaults, placement->slas.get(), lease_config->default_group);
    api_context.leases = &lease_policies;
    store::PgLeaseStore lease_store(pool);
    workflow::LeaseSweeper lease_sweeper(lease_store, clock, lease_config->sweep, [&engine] { engine.Wake(); });
    ops::LeaseMetrics lease_metrics(metrics_registry);
    lease_sweeper.SetObserver(&lease_metrics);
    server::Router router;
    // Schedules: the routes, and the file notifications (today from the admin HTTP endpoint).
    store::PgScheduleStore schedule_store(pool);
    api::ScheduleApi schedule_api{api_context, schedule_store};
    app::RegisterAllRoutes(router, database, api_context, schedule_api, metrics_registry);
    // Idle GPU reclamation (a periodic sweep any replica runs) and GET /quotas.
    store::PgIdleStore idle_store(pool);
    auto idle = app::MakeIdleReclaimer(*idle_config, **http, idle_store, clock, metrics_registry);
    auto quota_options = placement::ParsePlacementOptions(config->tree);
    api::QuotaApi quota_api{
        api_context, workflow_store, idle_store, quota_options ? quota_options->quotas : placement::QuotaOptions{}};
    api::RegisterQuotaRoutes(router, quota_api);
    schedule::ScheduleEventService schedule_events(
        schedule_store,
        templates,
        [&engine] { engine.Wake(); },
        clock,
        {.limits = config->deployment_limits, .leases = &lease_policies}
    );
    api::HttpFileNotificationSource file_notifications(router, api_context);
    file_notifications.Start(schedule_events);

    // Elastic clusters: a sweep that scales them from their queue signal through the PUT path.
    store::PgElasticStore elastic_store(pool);
    std::optional<api::ElasticSweep> elastic;
    if (elastic_config->enabled) {
        elastic.emplace(
            api_context, elastic_store, app::MakePrometheusQueueSignal(**http, *elastic_config), elastic_config->sweep
        );
    }

    server::HttpServer server(config->server, router);
    server.SetObserver(ops::MakeRequestMetricsObserver(metrics_registry));
    if (auto started = server.Start(); !started) {
        ORCH_LOG_ERROR("cannot start", {{"error", started.error().message}});
        return 1;
    }
    engine.Start();
    callbacks.Start();
    if (elastic) {
        elastic->Start();
    }
    if (idle.reclaimer) {
        idle.reclaimer->Start();
    }
    lease_sweeper.Start();
    if (iam_clients->sweeper) {
        iam_clients->sweeper->Start();
    }
    ORCH_LOG_INFO(
        "listening", {{"address", config->server.listen}, {"port", server.port()}, {"instance", config->instance_id}}
    );

    std::thread signal_waiter([&server, signals] {
        int signal_number = 0;
        sigwait(&signals, &signal_number);
        ORCH_LOG_INFO("shutting down", {{"signal", signal_number}});
        server.Stop();
    });
    signal_waiter.detach();

    server.Run();
    file_notifications.Stop();
    if (elastic) {
        elastic->Stop();
    }
    lease_sweeper.Stop();
    if (iam_clients->sweeper) {
        iam_clients->sweeper->Stop();
    }
    site_watcher.Stop();
    engine.Stop();
    callbacks.Stop();
    if (idle.reclaimer) {
        idle.reclaimer->Stop();
    }
    database.Stop();
    ORCH_LOG_INFO("stopped");
    return 0;
}
