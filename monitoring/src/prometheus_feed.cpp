#include "monitoring/prometheus_feed.hpp"

#include "common/log.hpp"

#include <cmath>

namespace orch::monitoring {
namespace {

// Where one series lands: the site, and the service inside it when the series names one.
struct Key {
    std::string site;
    std::string service;
    auto operator<=>(const Key&) const = default;  // NOLINT(modernize-use-nullptr): clang-tidy 14 false positive
};

class Builder {
   public:
    explicit Builder(const PrometheusOptions& options) : options_(options) {}

    Key KeyOf(const Sample& sample) const {
        return {sample.Label(options_.site_label), sample.Label(options_.service_label)};
    }

    ProviderSignals& Site(const std::string& site) {
        auto& provider = snapshot_.providers[site];
        provider.provider_id = site;
        return provider;
    }

    ServiceSignals& Service(const Key& key) {
        auto& provider = Site(key.site);
        for (auto& service : provider.services) {
            if (service.service_id == key.service) {
                return service;
            }
        }
        provider.services.push_back(ServiceSignals{});
        provider.services.back().service_id = key.service;
        return provider.services.back();
    }

    Capacity& CapacityOf(const Key& key) {
        return key.service.empty() ? Site(key.site).capacity : Service(key).capacity;
    }

    void Availability(const std::vector<Sample>& samples) {
        for (const auto& sample : samples) {
            const Key key = KeyOf(sample);
            if (key.site.empty()) {
                continue;
            }
            const bool up = sample.value >= 1;
            if (key.service.empty()) {
                Site(key.site).up = up;
                continue;
            }
            auto& service = Service(key);
            service.up = up;
            service.metrics.emplace_back("create_result", up ? 1.0 : 0.0);
        }
    }

    void ResponseTime(const std::vector<Sample>& samples) {
        for (const auto& sample : samples) {
            const Key key = KeyOf(sample);
            if (key.site.empty() || !std::isfinite(sample.value)) {
                continue;
            }
            const double ms = sample.value * 1000.0;
            if (key.service.empty()) {
                Site(key.site).response_ms = ms;
                continue;
            }
            auto& service = Service(key);
            service.response_ms = ms;
            service.metrics.emplace_back("create_responseTime", ms);
        }
    }

    // Per query: totals by (site, service); across queries: the smallest answer wins.
    void FreeGpus(const std::vector<Sample>& samples) {
        std::map<Key, double> totals;
        for (const auto& sample : samples) {
            const Key key = KeyOf(sample);
            if (key.site.empty() || !std::isfinite(sample.value)) {
                continue;
            }
            totals[key] += std::max(0.0, sample.value);
            const std::string model = sample.Label(options_.model_label);
            if (!model.empty()) {
                CapacityOf(key).free_gpus_by_model[model] += static_cast<int>(sample.value);
            }
        }
        for (const auto& [key, total] : totals) {
            auto& capacity = CapacityOf(key);
            const int free = static_cast<int>(total);
            capacity.free_gpus = capacity.free_gpus ? std::min(*capacity.free_gpus, free) : free;
        }
    }

    void Inventory(const std::vector<Sample>& samples) {
        for (const auto& sample : samples) {
            const Key key = KeyOf(sample);
            const std::string model = sample.Label(options_.model_label);
            if (key.site.empty() || model.empty() || !std::isfinite(sample.value)) {
                continue;
            }
            CapacityOf(key).gpus_by_model[model] += static_cast<int>(sample.value);
        }
    }

    void Scalar(const std::vector<Sample>& samples, std::optional<double> Capacity::*field) {
        for (const auto& sample : samples) {
            const Key key = KeyOf(sample);
            if (!key.site.empty() && std::isfinite(sample.value)) {
                CapacityOf(key).*field = std::max(0.0, sample.value);
            }
        }
    }

    Snapshot& snapshot() { return snapshot_; }

   private:
    const PrometheusOptions& options_;
    Snapshot snapshot_;
};

}  // namespace

PrometheusFeed::PrometheusFeed(http::Client& http, PrometheusOptions options, const Clock& clock)
    : client_(http, options.url, options.timeout), options_(std::move(options)), clock_(clock) {}

std::shared_ptr<const Snapshot> PrometheusFeed::Build() {
    Builder builder(options_);
    bool unreachable = false;
    auto run = [&](const char* signal, const std::string& promql, auto&& apply) {
        if (promql.empty() || unreachable) {
            return;
        }
        auto samples = client_.Query(promql);
        if (!samples) {
            // Transport failures repeat for every query: one note, and no more waiting on timeouts.
            const auto code = samples.error().code;
            unreachable = code == ErrorCode::kUnavailable || code == ErrorCode::kDeadlineExceeded;
            ORCH_LOG_WARN("prometheus query failed", {{"signal", signal}, {"error", samples.error().message}});
            builder.snapshot().notes.push_back(
                std::string("monitoring: Prometheus query for ") + signal + " failed: " + samples.error().message
            );
            return;
        }
        apply(*samples);
    };
    const auto& q = options_.queries;
    run("availability", q.availability, [&](const auto& s) { builder.Availability(s); });
    run("response time", q.response_time, [&](const auto& s) { builder.ResponseTime(s); });
    for (const auto& query : q.free_gpus) {
        run("free GPUs", query, [&](const auto& s) { builder.FreeGpus(s); });
    }
    run("GPU inventory", q.gpu_inventory, [&](const auto& s) { builder.Inventory(s); });
    run("free CPUs", q.free_cpus, [&](const auto& s) { builder.Scalar(s, &Capacity::free_cpus); });
    run("free memory", q.free_mem_mb, [&](const auto& s) { builder.Scalar(s, &Capacity::free_mem_mb); });
    return std::make_shared<const Snapshot>(std::move(builder.snapshot()));
}

std::shared_ptr<const Snapshot> PrometheusFeed::Collect(const std::vector<std::string>&) {
    const std::lock_guard lock(mutex_);
    const auto now = clock_.now();
    if (cached_ && now - cached_at_ < options_.ttl) {
        return cached_;
    }
    cached_ = Build();
    cached_at_ = now;
    return cached_;
}

}  // namespace orch::monitoring
