#include "monitoring/signals.hpp"

#include "monitoring/feed.hpp"

namespace orch::monitoring {
namespace {

bool IsProbedService(const std::string& category) {
    return category == "org.openstack.nova" || category == "eu.indigo-datacloud.marathon" ||
           category == "eu.indigo-datacloud.chronos";
}

void DeriveProbe(ServiceSignals& service) {
    const auto result = service.Metric("create_result");
    if (!result) {
        return;
    }
    service.up = *result >= 1;
    const auto time = service.Metric("create_responseTime");
    if (service.up.value() && time && *time > 0) {
        service.response_ms = *time;
    }
}

// Mesos masters publish master/<x> snapshot keys as master.<x>; the counts include all agents.
void DeriveMesos(ServiceSignals& service) {
    auto difference = [&](const char* total, const char* used) -> std::optional<double> {
        const auto t = service.Metric(total);
        const auto u = service.Metric(used);
        if (!t || !u) {
            return std::nullopt;
        }
        return *t > *u ? *t - *u : 0.0;
    };
    service.capacity.free_cpus = difference("master.cpus_total", "master.cpus_used");
    service.capacity.free_mem_mb = difference("master.mem_total", "master.mem_used");
    if (const auto gpus = difference("master.gpus_total", "master.gpus_used")) {
        service.capacity.free_gpus = static_cast<int>(*gpus);
    }
    if (const auto elected = service.Metric("master.elected")) {
        service.up = *elected >= 1;
    }
}

}  // namespace

bool Capacity::empty() const {
    return !free_cpus && !free_mem_mb && !free_gpus && free_gpus_by_model.empty() && gpus_by_model.empty();
}

std::optional<double> ServiceSignals::Metric(const std::string& name) const {
    for (const auto& [key, value] : metrics) {
        if (key == name) {
            return value;
        }
    }
    return std::nullopt;
}

const ServiceSignals* ProviderSignals::FindService(std::string_view service_id) const {
    for (const auto& service : services) {
        if (service.service_id == service_id) {
            return &service;
        }
    }
    return nullptr;
}

const ProviderSignals* Snapshot::FindProvider(std::string_view provider_id) const {
    const auto it = providers.find(provider_id);
    return it == providers.end() ? nullptr : &it->second;
}

void DeriveFromMetrics(ServiceSignals& service) {
    if (IsProbedService(service.category)) {
        DeriveProbe(service);
    } else if (service.category == "eu.indigo-datacloud.mesos") {
        DeriveMesos(service);
    }
}

std::shared_ptr<const Snapshot> NoFeed::Collect(const std::vector<std::string>&) {
    static const auto kEmpty = std::make_shared<const Snapshot>();
    return kEmpty;
}

}  // namespace orch::monitoring
