#pragma once

#include "common/result.hpp"
#include "monitoring/prometheus_api.hpp"

#include <chrono>
#include <optional>
#include <string>

namespace orch::monitoring {

/// Which DCGM series belong to one deployment's workloads (docs/lifecycle.md, "Idle GPU
/// reclamation"): on Kubernetes the `namespace` label dcgm-exporter copies from the pod, which is
/// the namespace our connector creates for the deployment (its physical id); elsewhere a label the
/// site adds to the exporter's series (by relabelling or the exporter's own labels) carrying the
/// deployment id. Either may be empty (not matched).
struct GpuWorkload {
    std::string kubernetes_namespace;
    std::string deployment_id;
};

struct GpuUtilisationOptions {
    std::string metric = "DCGM_FI_DEV_GPU_UTIL";
    std::string namespace_label = "namespace";
    std::string deployment_label = "orchestrator_deployment";
};

/// The PromQL for the highest utilisation (percent) any GPU of `workload` reached over the last
/// `window`: `max(max_over_time(M{namespace="ns"}[Ws]) or max_over_time(M{label="id"}[Ws]))`.
/// nullopt when neither value is a safe label value (a DNS label or UUID: lowercase letters,
/// digits and '-', at most 63 characters), so no text of ours ever needs escaping in PromQL.
std::optional<std::string> GpuUtilisationQuery(
    const GpuWorkload& workload, std::chrono::seconds window, const GpuUtilisationOptions& options
);

/// Reads a deployment's GPU utilisation from Prometheus (dcgm-exporter's series).
class GpuUtilisationReader {
   public:
    /// `client` must outlive the reader.
    GpuUtilisationReader(PrometheusClient& client, GpuUtilisationOptions options);
    /// The highest utilisation over `window`; nullopt when no series matches (nothing known:
    /// a stopped workload, a site without the exporter). Errors are the client's.
    Result<std::optional<double>> MaxUtilisation(const GpuWorkload& workload, std::chrono::seconds window);

   private:
    PrometheusClient& client_;
    GpuUtilisationOptions options_;
};

}  // namespace orch::monitoring
