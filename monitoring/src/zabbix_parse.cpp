#include "monitoring/zabbix_feed.hpp"

namespace orch::monitoring {
namespace {

std::string Text(const Json& object, std::string_view key) {
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

void ReadMetrics(const Json& machine, ServiceSignals& service) {
    const auto services = machine.find("services");
    if (services == machine.end() || !services->is_array()) {
        return;
    }
    for (const auto& entry : *services) {
        const auto metrics = entry.is_object() ? entry.find("paasMetrics") : entry.end();
        if (!entry.is_object() || metrics == entry.end() || !metrics->is_array()) {
            continue;
        }
        for (const auto& metric : *metrics) {
            const auto value = metric.is_object() ? metric.find("metricValue") : metric.end();
            if (!metric.is_object() || value == metric.end() || !value->is_number()) {
                continue;  // "Instant null" metrics carry no number
            }
            service.metrics.emplace_back(Text(metric, "metricName"), value->get<double>());
        }
    }
}

}  // namespace

Result<ProviderSignals> ParseZabbixGroup(const Json& body, const std::string& provider_id) {
    if (!body.is_object()) {
        return Error::InvalidArgument("monitoring answer for " + provider_id + " is not a JSON object");
    }
    const auto result = body.find("result");
    const Json* groups = nullptr;
    if (result != body.end() && result->is_object() && result->contains("groups")) {
        groups = &(*result)["groups"];
    }
    if (groups == nullptr || !groups->is_array() || groups->empty() || !(*groups)[0].is_object()) {
        return Error::NotFound("No metrics available for provider " + provider_id);
    }
    const Json& group = (*groups)[0];
    ProviderSignals signals;
    signals.provider_id = provider_id;
    const auto machines = group.find("paasMachines");
    if (machines == group.end() || !machines->is_array()) {
        return signals;
    }
    for (const auto& machine : *machines) {
        if (!machine.is_object()) {
            continue;
        }
        ServiceSignals service;
        service.service_id = Text(machine, "machineName");
        service.category = Text(machine, "serviceCategory");
        ReadMetrics(machine, service);
        DeriveFromMetrics(service);
        signals.services.push_back(std::move(service));
    }
    return signals;
}

}  // namespace orch::monitoring
