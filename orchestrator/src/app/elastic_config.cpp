#include "orchestrator/app/elastic_config.hpp"

#include "monitoring/prometheus_api.hpp"
#include "orchestrator/app/sla_group_policies.hpp"

#include <algorithm>
#include <memory>

namespace orch::app {
namespace {

// Prometheus's metric and label name grammar: the names go into PromQL, so only names pass.
bool IsPromName(const std::string& name) {
    if (name.empty() || name.size() > 200 || (std::isdigit(static_cast<unsigned char>(name[0])) != 0)) {
        return false;
    }
    return std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == ':';
    });
}

// A deployment id is a UUID we generated; anything else never reaches the query text.
bool IsUuidText(const std::string& id) {
    return !id.empty() && id.size() <= 36 && std::all_of(id.begin(), id.end(), [](char c) {
        return std::isxdigit(static_cast<unsigned char>(c)) != 0 || c == '-';
    });
}

// The policy keys under `prefix` ("elastic." in the configuration, "<group>.elastic." in the
// SLA file), each defaulting to what `s` holds.
Status ParseSettings(const ConfigTree& t, const std::string& prefix, workflow::ElasticSettings& s) {
    ORCH_ASSIGN_OR_RETURN(s.scale_out_above, t.GetDouble(prefix + "scale_out_above", s.scale_out_above));
    ORCH_ASSIGN_OR_RETURN(s.scale_in_below, t.GetDouble(prefix + "scale_in_below", s.scale_in_below));
    ORCH_ASSIGN_OR_RETURN(s.jobs_per_worker, t.GetDouble(prefix + "jobs_per_worker", s.jobs_per_worker));
    ORCH_ASSIGN_OR_RETURN(const auto step, t.GetInt(prefix + "max_step", s.max_step, 1, 1000));
    s.max_step = static_cast<int>(step);
    ORCH_ASSIGN_OR_RETURN(s.sustain, t.GetDuration(prefix + "sustain", s.sustain));
    ORCH_ASSIGN_OR_RETURN(s.cooldown, t.GetDuration(prefix + "cooldown", s.cooldown));
    if (s.scale_in_below > s.scale_out_above) {
        return Error::InvalidArgument(
            "config key '" + prefix + "scale_in_below': must not exceed " + prefix + "scale_out_above"
        );
    }
    if (!(s.jobs_per_worker > 0)) {
        return Error::InvalidArgument("config key '" + prefix + "jobs_per_worker': must be positive");
    }
    return Ok();
}

// Per-group policies from the local SLA file: an `elastic:` mapping with the keys of `elastic.*`,
// over the operator's defaults.
Status ReadGroupPolicies(const ConfigTree& t, ElasticConfig& c) {
    return ForEachSlaGroupSection(
        t,
        "elastic",
        [&c](const ConfigTree& slas, const std::string& group, const std::string& prefix) -> Status {
            workflow::ElasticSettings settings = c.sweep.settings;
            ORCH_RETURN_IF_ERROR(ParseSettings(slas, prefix, settings));
            c.sweep.by_group.emplace(group, settings);
            return Ok();
        }
    );
}

}  // namespace

Result<ElasticConfig> ParseElasticConfig(const ConfigTree& t) {
    ElasticConfig c;
    ORCH_ASSIGN_OR_RETURN(c.enabled, t.GetBool("elastic.enabled", c.enabled));
    ORCH_ASSIGN_OR_RETURN(const auto feed, t.GetString("placement.monitoring.url", ""));
    ORCH_ASSIGN_OR_RETURN(c.prometheus_url, t.GetString("elastic.prometheus_url", feed));
    ORCH_ASSIGN_OR_RETURN(c.metric, t.GetString("elastic.queue_metric", c.metric));
    ORCH_ASSIGN_OR_RETURN(c.label, t.GetString("elastic.deployment_label", c.label));
    ORCH_ASSIGN_OR_RETURN(c.timeout, t.GetDuration("elastic.timeout", c.timeout));
    ORCH_ASSIGN_OR_RETURN(c.sweep.interval, t.GetDuration("elastic.interval", c.sweep.interval));
    ORCH_ASSIGN_OR_RETURN(const auto batch, t.GetInt("elastic.batch", c.sweep.batch, 1, 10'000));
    c.sweep.batch = static_cast<int>(batch);
    ORCH_RETURN_IF_ERROR(ParseSettings(t, "elastic.", c.sweep.settings));
    if (c.enabled) {
        ORCH_RETURN_IF_ERROR(ReadGroupPolicies(t, c));
    }
    if (!IsPromName(c.metric)) {
        return Error::InvalidArgument("config key 'elastic.queue_metric': not a Prometheus metric name");
    }
    if (!IsPromName(c.label)) {
        return Error::InvalidArgument("config key 'elastic.deployment_label': not a Prometheus label name");
    }
    if (c.sweep.interval < std::chrono::seconds(1)) {
        return Error::InvalidArgument("config key 'elastic.interval': must be at least 1s");
    }
    if (c.enabled && c.prometheus_url.empty()) {
        return Error::InvalidArgument(
            "config key 'elastic.prometheus_url': required when elastic.enabled is true and "
            "placement.monitoring.url is not set"
        );
    }
    return c;
}

std::set<std::string> ElasticConfigKeys() {
    return {
        "elastic.enabled",
        "elastic.prometheus_url",
        "elastic.queue_metric",
        "elastic.deployment_label",
        "elastic.timeout",
        "elastic.interval",
        "elastic.batch",
        "elastic.scale_out_above",
        "elastic.scale_in_below",
        "elastic.jobs_per_worker",
        "elastic.max_step",
        "elastic.sustain",
        "elastic.cooldown",
    };
}

api::QueueSignal MakePrometheusQueueSignal(http::Client& http, const ElasticConfig& config) {
    auto client = std::make_shared<monitoring::PrometheusClient>(http, config.prometheus_url, config.timeout);
    return [client, metric = config.metric, label = config.label](const domain::Deployment& d
           ) -> Result<std::optional<double>> {
        if (!IsUuidText(d.id)) {
            return Error::InvalidArgument("elastic: deployment id is not a UUID");
        }
        ORCH_ASSIGN_OR_RETURN(const auto samples, client->Query("sum(" + metric + "{" + label + "=\"" + d.id + "\"})"));
        if (samples.empty()) {
            return std::optional<double>();
        }
        return std::optional<double>(samples.front().value);
    };
}

}  // namespace orch::app
