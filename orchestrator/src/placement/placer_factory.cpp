#include "orchestrator/placement/placer_factory.hpp"

#include "cmdb/cmdb_v1_source.hpp"
#include "cmdb/fedreg_source.hpp"
#include "cmdb/file_catalogue_source.hpp"
#include "cmdb/file_sla_source.hpp"
#include "cmdb/slam_source.hpp"
#include "monitoring/prometheus_feed.hpp"
#include "monitoring/zabbix_feed.hpp"

namespace orch::placement {
namespace {

constexpr const char* kRoot = "placement.";

std::string Key(const std::string& suffix) {
    return kRoot + suffix;
}

Error Bad(const std::string& key, const std::string& what) {
    return Error::InvalidArgument("config key '" + key + "': " + what);
}

Result<std::string> Choice(
    const ConfigTree& config,
    const std::string& key,
    const std::string& fallback,
    std::initializer_list<const char*> allowed
) {
    auto value = config.GetString(key, fallback);
    if (!value) {
        return value;
    }
    std::string list;
    for (const char* item : allowed) {
        if (*value == item) {
            return value;
        }
        list += (list.empty() ? "" : ", ") + std::string(item);
    }
    return Bad(key, "expected one of " + list + ", got '" + *value + "'");
}

Result<std::string> Required(const ConfigTree& config, const std::string& key, const std::string& why) {
    auto value = config.GetString(key, "");
    if (value && value->empty()) {
        return Bad(key, "is required " + why);
    }
    return value;
}

Status ReadLimits(const ConfigTree& config, const std::string& prefix, QuotaLimits& limits) {
    const std::pair<const char*, std::optional<double> QuotaLimits::*> fields[] = {
        {"cpus", &QuotaLimits::cpus},
        {"ram_mb", &QuotaLimits::ram_mb},
        {"gpus", &QuotaLimits::gpus},
        {"instances", &QuotaLimits::instances}};
    for (const auto& [name, field] : fields) {
        const std::string key = prefix + "." + name;
        if (!config.Has(key)) {
            continue;
        }
        auto value = config.GetDouble(key, 0);
        if (!value) {
            return std::move(value).error();
        }
        if (*value < 0) {
            return Bad(key, "must not be negative");
        }
        limits.*field = *value;
    }
    return Ok();
}

// One GPU class's limit: `V100: 4` (the class by its name alone), or a mapping with `limit` and
// what the SLA file's num_gpus targets may declare (`aliases`, `vendor`, `min_memory_mb`).
Result<GpuClassLimit> ReadClassLimit(const ConfigTree& config, const std::string& key, const std::string& name) {
    GpuClassLimit out;
    out.gpu_class.name = name;
    const bool mapping = !config.ChildKeys(key).empty();
    ORCH_ASSIGN_OR_RETURN(out.limit, config.GetDouble(mapping ? key + ".limit" : key, -1));
    if (out.limit < 0) {
        return Bad(key, "needs a limit that is not negative");
    }
    if (!mapping) {
        return out;
    }
    ORCH_ASSIGN_OR_RETURN(out.gpu_class.aliases, config.GetStringList(key + ".aliases"));
    ORCH_ASSIGN_OR_RETURN(out.gpu_class.vendor, config.GetString(key + ".vendor", ""));
    if (config.Has(key + ".min_memory_mb")) {
        ORCH_ASSIGN_OR_RETURN(const auto mb, config.GetInt(key + ".min_memory_mb", 0, 1, std::int64_t{1} << 40));
        out.gpu_class.min_memory_mb = static_cast<std::uint64_t>(mb);
    }
    return out;
}

// `<prefix>.gpu_classes`: class name → limit (docs/admission.md, "GPU classes").
Status ReadClassLimits(const ConfigTree& config, const std::string& prefix, QuotaLimits& limits) {
    const std::string key = prefix + ".gpu_classes";
    for (const auto& name : config.ChildKeys(key)) {
        if (name.find('.') != std::string::npos) {
            return Bad(key + "." + name, "class names in configuration cannot contain '.'");
        }
        ORCH_ASSIGN_OR_RETURN(auto limit, ReadClassLimit(config, key + "." + name, name));
        limits.gpu_classes.push_back(std::move(limit));
    }
    return Ok();
}

Status ReadGroupQuota(const ConfigTree& config, const std::string& prefix, GroupQuota& quota) {
    ORCH_RETURN_IF_ERROR(ReadLimits(config, prefix + ".group", quota.group));
    ORCH_RETURN_IF_ERROR(ReadClassLimits(config, prefix + ".group", quota.group));
    ORCH_RETURN_IF_ERROR(ReadLimits(config, prefix + ".user", quota.user));
    return ReadClassLimits(config, prefix + ".user", quota.user);
}

Status ReadWeights(const ConfigTree& config, ScoreWeights& weights) {
    const std::pair<const char*, double ScoreWeights::*> fields[] = {
        {"fit", &ScoreWeights::fit},
        {"availability", &ScoreWeights::availability},
        {"success", &ScoreWeights::success},
        {"latency", &ScoreWeights::latency}};
    for (const auto& [name, field] : fields) {
        const std::string key = Key("weights.") + name;
        auto value = config.GetDouble(key, weights.*field);
        if (!value) {
            return std::move(value).error();
        }
        if (*value < 0) {
            return Bad(key, "must not be negative");
        }
        weights.*field = *value;
    }
    return Ok();
}

Status ReadBreaker(const ConfigTree& config, BreakerOptions& breaker) {
    auto failures =
        config.GetInt(Key("circuit_breaker.failures"), static_cast<std::int64_t>(breaker.failures), 0, 1000);
    auto history = config.GetInt(Key("circuit_breaker.history"), static_cast<std::int64_t>(breaker.history), 1, 1000);
    auto cooldown = config.GetDuration(Key("circuit_breaker.cooldown"), breaker.cooldown);
    if (!failures || !history || !cooldown) {
        return !failures ? failures.error() : (!history ? history.error() : cooldown.error());
    }
    breaker.failures = static_cast<std::size_t>(*failures);
    breaker.history = static_cast<std::size_t>(*history);
    breaker.cooldown = *cooldown;
    return Ok();
}

Status ReadQuotas(const ConfigTree& config, QuotaOptions& quotas) {
    auto enabled = config.GetBool(Key("quotas.enabled"), quotas.enabled);
    if (!enabled) {
        return enabled.error();
    }
    quotas.enabled = *enabled;
    ORCH_RETURN_IF_ERROR(ReadGroupQuota(config, Key("quotas.default"), quotas.defaults));
    for (const auto& group : config.ChildKeys(Key("quotas.groups"))) {
        if (group.find('.') != std::string::npos) {
            return Bad(Key("quotas.groups.") + group, "group names in configuration cannot contain '.'");
        }
        ORCH_RETURN_IF_ERROR(ReadGroupQuota(config, Key("quotas.groups.") + group, quotas.groups[group]));
    }
    return Ok();
}

Result<std::unique_ptr<cmdb::CatalogueSource>> MakeCatalogue(
    const ConfigTree& config, http::Client& http, const Clock& clock
) {
    auto type = Choice(config, Key("catalogue.type"), "file", {"file", "cmdb", "fedreg"});
    auto ttl = config.GetDuration(Key("catalogue.ttl"), std::chrono::minutes(5));
    auto timeout = config.GetDuration(Key("catalogue.timeout"), std::chrono::seconds(10));
    if (!type || !ttl || !timeout) {
        return !type ? type.error() : (!ttl ? ttl.error() : timeout.error());
    }
    if (*type == "file") {
        auto path = Required(config, Key("catalogue.path"), "when placement.catalogue.type is file");
        if (!path) {
            return std::move(path).error();
        }
        auto source = cmdb::FileCatalogueSource::Open(*path, clock, *ttl);
        if (!source) {
            return std::move(source).error();
        }
        return std::unique_ptr<cmdb::CatalogueSource>(std::move(source).value());
    }
    auto url = Required(config, Key("catalogue.url"), "when placement.catalogue.type is cmdb");
    if (!url) {
        return std::move(url).error();
    }
    cmdb::CmdbV1Options options;
    options.url = *url;
    options.ttl = *ttl;
    options.timeout = *timeout;
    return std::unique_ptr<cmdb::CatalogueSource>(std::make_unique<cmdb::CmdbV1Source>(http, options, clock));
}

// The Federation Registry is both the catalogue and the SLA source: one object, one cache.
Result<std::unique_ptr<cmdb::FedRegSource>> MakeRegistry(
    const ConfigTree& config, http::Client& http, const Clock& clock
) {
    auto sla_type = Choice(config, Key("sla.type"), "fedreg", {"fedreg"});
    if (!sla_type) {
        return Bad(Key("sla.type"), "must be fedreg (or absent) when placement.catalogue.type is fedreg");
    }
    cmdb::FedRegOptions options;
    auto url = Required(config, Key("catalogue.url"), "when placement.catalogue.type is fedreg");
    auto ttl = config.GetDuration(Key("catalogue.ttl"), options.ttl);
    auto timeout = config.GetDuration(Key("catalogue.timeout"), options.timeout);
    auto deadline = config.GetDuration(Key("catalogue.deadline"), options.deadline);
    auto projects =
        config.GetInt(Key("catalogue.max_projects"), static_cast<std::int64_t>(options.max_projects), 1, 10'000);
    if (!url || !ttl || !timeout || !deadline || !projects) {
        return !url ? url.error()
                    : (!ttl ? ttl.error()
                            : (!timeout ? timeout.error() : (!deadline ? deadline.error() : projects.error())));
    }
    options.url = *url;
    options.ttl = *ttl;
    options.timeout = *timeout;
    options.deadline = *deadline;
    options.max_projects = static_cast<std::size_t>(*projects);
    return std::make_unique<cmdb::FedRegSource>(http, options, clock);
}

Result<std::unique_ptr<cmdb::SlaSource>> MakeSlas(const ConfigTree& config, http::Client& http, const Clock& clock) {
    auto type = Choice(config, Key("sla.type"), "file", {"file", "slam", "fedreg"});
    auto ttl = config.GetDuration(Key("sla.ttl"), std::chrono::minutes(5));
    auto timeout = config.GetDuration(Key("sla.timeout"), std::chrono::seconds(10));
    if (!type || !ttl || !timeout) {
        return !type ? type.error() : (!ttl ? ttl.error() : timeout.error());
    }
    if (*type == "file") {
        auto path = Required(config, Key("sla.path"), "when placement.sla.type is file");
        if (!path) {
            return std::move(path).error();
        }
        auto source = cmdb::FileSlaSource::Open(*path);
        if (!source) {
            return std::move(source).error();
        }
        return std::unique_ptr<cmdb::SlaSource>(std::move(source).value());
    }
    auto url = Required(config, Key("sla.url"), "when placement.sla.type is slam");
    if (!url) {
        return std::move(url).error();
    }
    cmdb::SlamOptions options;
    options.url = *url;
    options.ttl = *ttl;
    options.timeout = *timeout;
    return std::unique_ptr<cmdb::SlaSource>(std::make_unique<cmdb::SlamSource>(http, options, clock));
}

Status ReadQueries(const ConfigTree& config, monitoring::PrometheusQueries& queries) {
    const std::pair<const char*, std::string monitoring::PrometheusQueries::*> fields[] = {
        {"availability", &monitoring::PrometheusQueries::availability},
        {"response_time", &monitoring::PrometheusQueries::response_time},
        {"gpu_inventory", &monitoring::PrometheusQueries::gpu_inventory},
        {"free_cpus", &monitoring::PrometheusQueries::free_cpus},
        {"free_mem_mb", &monitoring::PrometheusQueries::free_mem_mb}};
    for (const auto& [name, field] : fields) {
        auto value = config.GetString(Key("monitoring.queries.") + name, queries.*field);
        if (!value) {
            return std::move(value).error();
        }
        queries.*field = *value;
    }
    if (config.Has(Key("monitoring.queries.free_gpus"))) {
        auto list = config.GetStringList(Key("monitoring.queries.free_gpus"), ';');
        if (!list) {
            return std::move(list).error();
        }
        queries.free_gpus = *list;
    }
    return Ok();
}

Result<std::unique_ptr<monitoring::Feed>> MakeFeed(const ConfigTree& config, http::Client& http, const Clock& clock) {
    auto type = Choice(config, Key("monitoring.type"), "none", {"none", "indigo", "prometheus"});
    auto ttl = config.GetDuration(Key("monitoring.ttl"), std::chrono::seconds(30));
    auto timeout = config.GetDuration(Key("monitoring.timeout"), std::chrono::seconds(5));
    if (!type || !ttl || !timeout) {
        return !type ? type.error() : (!ttl ? ttl.error() : timeout.error());
    }
    if (*type == "none") {
        return std::unique_ptr<monitoring::Feed>(std::make_unique<monitoring::NoFeed>());
    }
    auto url = Required(config, Key("monitoring.url"), "when placement.monitoring.type is " + *type);
    if (!url) {
        return std::move(url).error();
    }
    if (*type == "indigo") {
        monitoring::ZabbixOptions options;
        options.url = *url;
        options.ttl = *ttl;
        options.timeout = *timeout;
        auto deadline = config.GetDuration(Key("monitoring.deadline"), options.deadline);
        auto zone = config.GetString(Key("monitoring.zone"), options.zone);
        if (!deadline || !zone) {
            return !deadline ? deadline.error() : zone.error();
        }
        options.deadline = *deadline;
        options.zone = *zone;
        return std::unique_ptr<monitoring::Feed>(std::make_unique<monitoring::ZabbixFeed>(http, options, clock));
    }
    monitoring::PrometheusOptions options;
    options.url = *url;
    options.ttl = *ttl;
    options.timeout = *timeout;
    ORCH_RETURN_IF_ERROR(ReadQueries(config, options.queries));
    for (auto [name, field] :
         {std::pair{"site", &options.site_label},
          std::pair{"service", &options.service_label},
          std::pair{"model", &options.model_label}}) {
        auto value = config.GetString(Key("monitoring.labels.") + name, *field);
        if (!value) {
            return std::move(value).error();
        }
        *field = *value;
    }
    return std::unique_ptr<monitoring::Feed>(std::make_unique<monitoring::PrometheusFeed>(http, options, clock));
}

}  // namespace

Result<PlacementOptions> ParsePlacementOptions(const ConfigTree& config) {
    PlacementOptions options;
    auto mode = Choice(config, Key("mode"), "gpu-aware", {"gpu-aware", "indigo"});
    auto max = config.GetInt(Key("max_candidates"), static_cast<std::int64_t>(options.max_candidates), 1, 10'000);
    auto group = config.GetString(Key("default_group"), "");
    if (!mode || !max || !group) {
        return !mode ? mode.error() : (!max ? max.error() : group.error());
    }
    options.mode = *mode == "indigo" ? PlacementMode::kIndigo : PlacementMode::kGpuAware;
    options.max_candidates = static_cast<std::size_t>(*max);
    options.default_group = *group;
    ORCH_RETURN_IF_ERROR(ReadWeights(config, options.weights));
    ORCH_RETURN_IF_ERROR(ReadBreaker(config, options.breaker));
    ORCH_RETURN_IF_ERROR(ReadQuotas(config, options.quotas));
    return options;
}

Result<PlacementServices> MakePlacementServices(
    const ConfigTree& config, http::Client& http, UsageSource& usage, SiteHistory& history, const Clock& clock
) {
    auto options = ParsePlacementOptions(config);
    if (!options) {
        return std::move(options).error();
    }
    PlacementServices services;
    auto feed = MakeFeed(config, http, clock);
    if (!feed) {
        return std::move(feed).error();
    }
    services.feed = std::move(feed).value();
    if (config.GetString(Key("catalogue.type"), "").value_or("") == "fedreg") {
        auto registry = MakeRegistry(config, http, clock);
        if (!registry) {
            return std::move(registry).error();
        }
        services.registry = std::move(registry).value();
        services.placer = std::make_unique<DefaultPlacer>(
            *services.registry, *services.registry, *services.feed, usage, history, std::move(options).value(), clock
        );
        return services;
    }
    auto catalogue = MakeCatalogue(config, http, clock);
    if (!catalogue) {
        return std::move(catalogue).error();
    }
    auto slas = MakeSlas(config, http, clock);
    if (!slas) {
        return std::move(slas).error();
    }
    services.catalogue = std::move(catalogue).value();
    services.slas = std::move(slas).value();
    services.placer = std::make_unique<DefaultPlacer>(
        *services.catalogue, *services.slas, *services.feed, usage, history, std::move(options).value(), clock
    );
    return services;
}

std::set<std::string> PlacementConfigKeys() {
    std::set<std::string> keys = {
        "placement.mode",
        "placement.max_candidates",
        "placement.default_group",
        "placement.catalogue.type",
        "placement.catalogue.path",
        "placement.catalogue.url",
        "placement.catalogue.ttl",
        "placement.catalogue.timeout",
        "placement.catalogue.deadline",
        "placement.catalogue.max_projects",
        "placement.sla.type",
        "placement.sla.path",
        "placement.sla.url",
        "placement.sla.ttl",
        "placement.sla.timeout",
        "placement.monitoring.type",
        "placement.monitoring.url",
        "placement.monitoring.ttl",
        "placement.monitoring.timeout",
        "placement.monitoring.deadline",
        "placement.monitoring.zone",
        "placement.monitoring.labels.site",
        "placement.monitoring.labels.service",
        "placement.monitoring.labels.model",
        "placement.monitoring.queries.availability",
        "placement.monitoring.queries.response_time",
        "placement.monitoring.queries.free_gpus",
        "placement.monitoring.queries.gpu_inventory",
        "placement.monitoring.queries.free_cpus",
        "placement.monitoring.queries.free_mem_mb",
        "placement.weights.fit",
        "placement.weights.availability",
        "placement.weights.success",
        "placement.weights.latency",
        "placement.circuit_breaker.failures",
        "placement.circuit_breaker.history",
        "placement.circuit_breaker.cooldown",
        "placement.quotas.enabled",
        "placement.quotas.groups.*",
    };
    for (const char* scope : {"group", "user"}) {
        for (const char* field : {"cpus", "ram_mb", "gpus", "instances"}) {
            keys.insert(std::string("placement.quotas.default.") + scope + "." + field);
        }
        keys.insert(std::string("placement.quotas.default.") + scope + ".gpu_classes.*");
    }
    return keys;
}

}  // namespace orch::placement
