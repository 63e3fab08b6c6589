#include "orchestrator/app/app_config.hpp"

#include "orchestrator/app/config_keys.hpp"

#include <unistd.h>

namespace orch::app {
namespace {

Status ParseEvents(const ConfigTree& t, api::EventStreamOptions& e, server::ServerOptions& s) {
    ORCH_ASSIGN_OR_RETURN(e.poll_interval, t.GetDuration("events.poll_interval", e.poll_interval));
    ORCH_ASSIGN_OR_RETURN(e.heartbeat, t.GetDuration("events.heartbeat", e.heartbeat));
    if (e.poll_interval < std::chrono::milliseconds(50) || e.heartbeat < e.poll_interval) {
        return Error::InvalidArgument(
            "config keys 'events.poll_interval' and 'events.heartbeat': need 50ms <= poll_interval <= heartbeat"
        );
    }
    ORCH_ASSIGN_OR_RETURN(
        const auto total, t.GetInt("events.max_streams", static_cast<std::int64_t>(e.max_streams), 0, 1'000'000)
    );
    e.max_streams = static_cast<std::size_t>(total);
    ORCH_ASSIGN_OR_RETURN(
        const auto per_caller,
        t.GetInt("events.max_streams_per_caller", static_cast<std::int64_t>(e.max_streams_per_caller), 0, 100'000)
    );
    e.max_streams_per_caller = static_cast<std::size_t>(per_caller);
    ORCH_ASSIGN_OR_RETURN(s.stream_buffer_limit, t.GetBytes("events.max_buffer_bytes", s.stream_buffer_limit));
    if (s.stream_buffer_limit < 4096) {
        return Error::InvalidArgument("config key 'events.max_buffer_bytes': must be at least 4KiB");
    }
    ORCH_ASSIGN_OR_RETURN(
        const auto window, t.GetInt("events.window_events", static_cast<std::int64_t>(e.window_events), 1, 1'000'000)
    );
    e.window_events = static_cast<std::size_t>(window);
    ORCH_ASSIGN_OR_RETURN(e.window_bytes, t.GetBytes("events.window_bytes", e.window_bytes));
    return Ok();
}

Status ParseServer(const ConfigTree& t, server::ServerOptions& s) {
    ORCH_ASSIGN_OR_RETURN(s.listen, t.GetString("server.listen", s.listen));
    if (s.listen.rfind(':') == std::string::npos) {
        return Error::InvalidArgument("config key 'server.listen': expected host:port, got '" + s.listen + "'");
    }
    ORCH_ASSIGN_OR_RETURN(s.body_limit, t.GetBytes("server.body_limit", s.body_limit));
    ORCH_ASSIGN_OR_RETURN(s.header_limit, t.GetBytes("server.header_limit", s.header_limit));
    ORCH_ASSIGN_OR_RETURN(s.header_timeout, t.GetDuration("server.header_timeout", s.header_timeout));
    ORCH_ASSIGN_OR_RETURN(s.body_timeout, t.GetDuration("server.body_timeout", s.body_timeout));
    ORCH_ASSIGN_OR_RETURN(s.idle_timeout, t.GetDuration("server.idle_timeout", s.idle_timeout));
    ORCH_ASSIGN_OR_RETURN(s.write_timeout, t.GetDuration("server.write_timeout", s.write_timeout));
    ORCH_ASSIGN_OR_RETURN(s.shutdown_grace, t.GetDuration("server.shutdown_grace", s.shutdown_grace));
    ORCH_ASSIGN_OR_RETURN(const auto io, t.GetInt("server.io_threads", s.io_threads, 1, 64));
    ORCH_ASSIGN_OR_RETURN(const auto workers, t.GetInt("server.worker_threads", s.worker_threads, 1, 512));
    ORCH_ASSIGN_OR_RETURN(
        const auto queue,
        t.GetInt("server.max_queued_requests", static_cast<std::int64_t>(s.max_queued_requests), 1, 1'000'000)
    );
    ORCH_ASSIGN_OR_RETURN(
        const auto conns, t.GetInt("server.max_connections", static_cast<std::int64_t>(s.max_connections), 1, 1'000'000)
    );
    ORCH_ASSIGN_OR_RETURN(s.access_log, t.GetBool("server.access_log", s.access_log));
    ORCH_ASSIGN_OR_RETURN(const auto proxies, t.GetStringList("server.trusted_proxies"));
    auto trust = server::ProxyTrust::FromList(proxies);
    if (!trust) {
        return Error::InvalidArgument("config key 'server.trusted_proxies': " + trust.error().message);
    }
    s.trusted_proxies = std::move(*trust);
    s.io_threads = static_cast<int>(io);
    s.worker_threads = static_cast<int>(workers);
    s.max_queued_requests = static_cast<std::size_t>(queue);
    s.max_connections = static_cast<std::size_t>(conns);
    return Ok();
}

Status ParseDatabase(const ConfigTree& t, store::PgPoolOptions& d) {
    ORCH_ASSIGN_OR_RETURN(d.dsn, t.GetString("database.url", ""));
    if (d.dsn.empty()) {
        return Error::InvalidArgument("config key 'database.url': required (or set ORCHESTRATOR_DB_URL)");
    }
    ORCH_ASSIGN_OR_RETURN(const auto size, t.GetInt("database.pool_size", static_cast<std::int64_t>(d.size), 1, 256));
    d.size = static_cast<std::size_t>(size);
    ORCH_ASSIGN_OR_RETURN(d.acquire_timeout, t.GetDuration("database.acquire_timeout", d.acquire_timeout));
    ORCH_ASSIGN_OR_RETURN(d.statement_timeout, t.GetDuration("database.statement_timeout", d.statement_timeout));
    ORCH_ASSIGN_OR_RETURN(const auto connect, t.GetDuration("database.connect_timeout", d.connect_timeout));
    d.connect_timeout = std::max(std::chrono::seconds(1), std::chrono::duration_cast<std::chrono::seconds>(connect));
    return Ok();
}

std::string DefaultInstanceId() {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    return std::string(host) + ":" + std::to_string(::getpid());
}

}  // namespace

const std::map<std::string, std::string>& EnvironmentAliases() {
    static const std::map<std::string, std::string> kAliases = {
        {"ORCHESTRATOR_LISTEN", "server.listen"},
        {"ORCHESTRATOR_DB_URL", "database.url"},
        {"ORCHESTRATOR_LOG_LEVEL", "log.level"},
        {"ORCHESTRATOR_EXTERNAL_URL", "server.external_base_url"},
        {"ORCHESTRATOR_TOSCA_MIRRORS", "tosca.mirrors"},
        {"ORCHESTRATOR_AUTH", "auth.mode"},
        {"ORCHESTRATOR_INSTANCE_ID", "instance_id"},
    };
    return kAliases;
}

Result<AppConfig> LoadConfig(const std::string& path, const std::map<std::string, std::string>& env) {
    AppConfig config;
    if (!path.empty()) {
        auto tree = ConfigTree::FromFile(path);
        if (!tree) {
            return std::move(tree).error();
        }
        config.tree = std::move(*tree);
    }
    config.tree.ApplyEnvironment(env, EnvironmentAliases());
    // A misspelt key would otherwise be ignored silently and its default used.
    ORCH_RETURN_IF_ERROR(config.tree.CheckKnownKeys(KnownConfigKeys()));
    ORCH_RETURN_IF_ERROR(ParseServer(config.tree, config.server));
    ORCH_RETURN_IF_ERROR(ParseDatabase(config.tree, config.database));
    ORCH_RETURN_IF_ERROR(ParseEvents(config.tree, config.events, config.server));
    auto base = config.tree.GetString("server.external_base_url", "");
    ORCH_RETURN_IF_ERROR(base);
    config.external_base_url = *base;
    while (!config.external_base_url.empty() && config.external_base_url.back() == '/') {
        config.external_base_url.pop_back();
    }
    auto allowed = config.tree.GetStringList("egress.allowed");
    ORCH_RETURN_IF_ERROR(allowed);
    auto egress = http::EgressPolicy::FromAllowList(*allowed);
    if (!egress) {
        return Error::InvalidArgument("config key 'egress.allowed': " + egress.error().message);
    }
    config.egress = std::make_shared<const http::EgressPolicy>(std::move(*egress));
    auto level = config.tree.GetString("log.level", "info");
    ORCH_RETURN_IF_ERROR(level);
    if (!log::ParseLevel(*level, config.log_level)) {
        return Error::InvalidArgument(
            "config key 'log.level': expected trace, debug, info, warn or error, got '" + *level + "'"
        );
    }
    auto instance = config.tree.GetString("instance_id", DefaultInstanceId());
    ORCH_RETURN_IF_ERROR(instance);
    config.instance_id = *instance;
    auto max_instances =
        config.tree.GetInt("deployments.max_instances", config.deployment_limits.max_instances, 1, 1'000'000);
    ORCH_RETURN_IF_ERROR(max_instances);
    config.deployment_limits.max_instances = *max_instances;
    return config;
}

}  // namespace orch::app
