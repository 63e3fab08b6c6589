#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace orch::monitoring {

/// Wall-clock source; tests pass a fake to move time.

/// Live capacity. Every field is optional: an absent value means "unknown", never "zero".
struct Capacity {
    std::optional<double> free_cpus;
    std::optional<double> free_mem_mb;
    std::optional<int> free_gpus;                   ///< free GPUs of any model
    std::map<std::string, int> free_gpus_by_model;  ///< free GPUs per model name, when the feed knows
    std::map<std::string, int> gpus_by_model;       ///< installed GPUs per model (inventory)

    bool empty() const;
};

/// What the feed says about one service (a Zabbix "paasMachine", or Prometheus series carrying a
/// service_id label).
struct ServiceSignals {
    std::string service_id;
    std::string category;  ///< the feed's service type (Zabbix serviceCategory); may be empty
    /// Raw metrics in feed order (Zabbix paasMetrics; Prometheus values mapped onto the same names:
    /// create_result, create_responseTime). Duplicates are kept: the indigo ranker fails on them.
    std::vector<std::pair<std::string, double>> metrics;
    std::optional<bool> up;             ///< the service's probe succeeded / failed
    std::optional<double> response_ms;  ///< probe response time
    Capacity capacity;

    std::optional<double> Metric(const std::string& name) const;
};

/// What the feed says about one site.
struct ProviderSignals {
    std::string provider_id;
    std::vector<ServiceSignals> services;
    std::optional<bool> up;  ///< site-wide availability (series without service_id)
    std::optional<double> response_ms;
    Capacity capacity;  ///< site-wide capacity (series without service_id)

    const ServiceSignals* FindService(std::string_view service_id) const;
};

/// Hashes any text the same way, so maps keyed by std::string are searched with a string_view.
struct TextHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
};

/// One collection over the providers asked for. Providers without data are absent (unknown).
/// Hashed by provider id: a placement looks up thousands of providers in it.
struct Snapshot {
    std::unordered_map<std::string, ProviderSignals, TextHash, std::equal_to<>> providers;
    std::vector<std::string> notes;  ///< failures, e.g. "monitoring: no metrics for provider X"

    const ProviderSignals* FindProvider(std::string_view provider_id) const;
};

/// Derives up/response time/capacity of a service from its raw metrics (Zabbix probe names:
/// create_result/create_responseTime; Mesos master.* metrics), per its category.
void DeriveFromMetrics(ServiceSignals& service);

}  // namespace orch::monitoring
