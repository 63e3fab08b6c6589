#include "orchestrator/app/config_keys.hpp"

#include "orchestrator/app/contextualisation_config.hpp"
#include "orchestrator/app/elastic_config.hpp"
#include "orchestrator/app/iam_client_config.hpp"
#include "orchestrator/app/idle_config.hpp"
#include "orchestrator/app/im_config.hpp"
#include "orchestrator/app/lease_config.hpp"
#include "orchestrator/app/openstack_config.hpp"
#include "orchestrator/auth/auth_config.hpp"
#include "orchestrator/placement/placer_factory.hpp"

namespace orch::app {

std::set<std::string> AppConfigKeys() {
    // Kept beside the parsers (app_config.cpp, workflow_config.cpp, tosca's EngineOptionsFromConfig,
    // config_credentials.cpp); the configuration.md test catches a key added to one but not the other.
    return {
        "server.listen",
        "server.external_base_url",
        "server.body_limit",
        "server.header_limit",
        "server.header_timeout",
        "server.body_timeout",
        "server.idle_timeout",
        "server.write_timeout",
        "server.shutdown_grace",
        "server.io_threads",
        "server.worker_threads",
        "server.max_queued_requests",
        "server.max_connections",
        "server.access_log",
        "server.trusted_proxies",
        "egress.allowed",
        "database.url",
        "database.pool_size",
        "database.acquire_timeout",
        "database.statement_timeout",
        "database.connect_timeout",
        "log.level",
        "instance_id",
        "workflow.workers",
        "self_healing.default",
        "self_healing.check_interval",
        "self_healing.lost_after",
        "self_healing.site_down_after",
        "self_healing.cleanup_max_backoff",
        "self_healing.cleanup_max_age",
        "workflow.lease",
        "workflow.idle_poll",
        "workflow.first_poll",
        "workflow.max_poll",
        "workflow.crash_loop_timeout",
        "workflow.site_watch",
        "workflow.site_watch_max_sites",
        "workflow.site_watch_stream_life",
        "workflow.site_watch_max_backoff",
        "workflow.admission_retry",
        "workflow.admission_max_wait",
        "workflow.admission_queue",
        "workflow.admission_weights",
        "workflow.admission_default_weight",
        "workflow.admission_gpu_weights",
        "workflow.admission_starvation_age",
        "workflow.admission_half_life",
        "workflow.admission_cohorts",
        "workflow.transient_retries",
        "workflow.callback_retries",
        "workflow.callback_timeout",
        "workflow.callback_max_backoff",
        "workflow.callback_max_age",
        "workflow.connector_call_timeout",
        "workflow.late_sweeps",
        "workflow.late_sweep_interval",
        "workflow.default_provider_timeout_mins",
        "deployments.deleted_retention",
        "events.retention",
        "events.heartbeat",
        "events.poll_interval",
        "events.max_streams",
        "events.max_streams_per_caller",
        "events.max_buffer_bytes",
        "events.window_events",
        "events.window_bytes",
        "tosca.mode",
        "tosca.unknown_parameters",
        "tosca.mirrors",
        "tosca.allowed_hosts",
        "tosca.max_template_bytes",
        "tosca.fetch_timeout",
        "tosca.fetched_ttl",
        "tosca.max_alias_expansion",
        "tosca.import_cache_bytes",
        "tosca.template_cache_entries",
        "tosca.template_cache_bytes",
        "deployments.max_instances",
        "credentials.*",
    };
}

std::set<std::string> KnownConfigKeys() {
    auto keys = AppConfigKeys();
    keys.merge(auth::AuthConfigKeys());
    keys.merge(placement::PlacementConfigKeys());
    keys.merge(ContextualisationConfigKeys());
    keys.merge(ImConfigKeys());
    keys.merge(OpenStackConfigKeys());
    keys.merge(ElasticConfigKeys());
    keys.merge(IdleConfigKeys());
    keys.merge(LeaseConfigKeys());
    keys.merge(IamClientConfigKeys());
    return keys;
}

}  // namespace orch::app
