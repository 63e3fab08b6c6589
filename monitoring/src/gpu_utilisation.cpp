#include "monitoring/gpu_utilisation.hpp"

#include <algorithm>

namespace orch::monitoring {
namespace {

// Label values we build into PromQL ourselves: DNS-1123 labels (Kubernetes namespaces) and
// UUIDs. Anything else is refused rather than escaped, so a crafted name cannot change the query.
bool SafeLabelValue(const std::string& value) {
    constexpr std::size_t kMax = 63;
    return !value.empty() && value.size() <= kMax && std::all_of(value.begin(), value.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    });
}

bool SafeName(const std::string& name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    });
}

std::string Selector(const GpuUtilisationOptions& o, const std::string& label, const std::string& value, long secs) {
    return "max_over_time(" + o.metric + "{" + label + "=\"" + value + "\"}[" + std::to_string(secs) + "s])";
}

}  // namespace

std::optional<std::string> GpuUtilisationQuery(
    const GpuWorkload& workload, std::chrono::seconds window, const GpuUtilisationOptions& options
) {
    if (!SafeName(options.metric)) {
        return std::nullopt;
    }
    const long secs = std::max<long>(1, static_cast<long>(window.count()));
    std::string inner;
    if (SafeLabelValue(workload.kubernetes_namespace) && SafeName(options.namespace_label)) {
        inner = Selector(options, options.namespace_label, workload.kubernetes_namespace, secs);
    }
    if (SafeLabelValue(workload.deployment_id) && SafeName(options.deployment_label)) {
        const std::string by_id = Selector(options, options.deployment_label, workload.deployment_id, secs);
        inner = inner.empty() ? by_id : inner + " or " + by_id;
    }
    if (inner.empty()) {
        return std::nullopt;
    }
    return "max(" + inner + ")";
}

GpuUtilisationReader::GpuUtilisationReader(PrometheusClient& client, GpuUtilisationOptions options)
    : client_(client), options_(std::move(options)) {}

Result<std::optional<double>> GpuUtilisationReader::MaxUtilisation(
    const GpuWorkload& workload, std::chrono::seconds window
) {
    const auto query = GpuUtilisationQuery(workload, window, options_);
    if (!query) {
        return std::optional<double>{};
    }
    auto samples = client_.Query(*query);
    if (!samples) {
        return std::move(samples).error();
    }
    std::optional<double> highest;
    for (const auto& sample : *samples) {
        highest = std::max(highest.value_or(sample.value), sample.value);
    }
    return highest;
}

}  // namespace orch::monitoring
