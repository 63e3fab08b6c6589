#pragma once

#include "common/clock.hpp"
#include "monitoring/feed.hpp"
#include "monitoring/prometheus_api.hpp"

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace orch::monitoring {

/// The PromQL behind each signal. Every series must carry the site label (the CMDB provider id)
/// and may carry a service label (a CMDB service id) and a GPU model label. Empty = not asked.
struct PrometheusQueries {
    std::string availability = R"(min by (site, service_id) (probe_success{job="paas-site-probe"}))";
    std::string response_time = R"(max by (site, service_id) (probe_duration_seconds{job="paas-site-probe"}))";
    /// Free GPUs; several queries may cover different cluster kinds. Where two answer for the same
    /// site (and service), the smaller number is kept, so one GPU is never counted twice.
    std::vector<std::string> free_gpus = {
        R"(sum by (site) (kube_node_status_allocatable{resource="nvidia_com_gpu"}) - sum by (site) (kube_pod_container_resource_requests{resource="nvidia_com_gpu"} * on (namespace, pod) group_left () (kube_pod_status_phase{phase=~"Pending|Running"} == 1)))",
        R"(sum by (site) (mesos_master_gpus{type="free"}))",
        R"(count by (site, modelName) (DCGM_FI_DEV_GPU_UTIL{pod=""}))",
    };
    std::string gpu_inventory = R"(count by (site, modelName) (DCGM_FI_DEV_GPU_UTIL))";
    std::string free_cpus = R"(sum by (site) (mesos_master_cpus{type="free"}))";
    std::string free_mem_mb = R"(sum by (site) (mesos_master_mem{type="free"}) / 1048576)";
};

struct PrometheusOptions {
    std::string url;
    std::chrono::milliseconds timeout{5'000};  ///< per query
    std::chrono::milliseconds ttl{30'000};     ///< a collection is reused this long
    std::string site_label = "site";
    std::string service_label = "service_id";
    std::string model_label = "modelName";
    PrometheusQueries queries;
};

/// Signals from the Prometheus HTTP API: one query per signal covers every site. Probe results
/// are also mapped onto the indigo metric names (create_result, create_responseTime in ms) so
/// the indigo ranker can use them.
class PrometheusFeed : public Feed {
   public:
    /// `http` and `clock` (cache age) must outlive the feed.
    PrometheusFeed(http::Client& http, PrometheusOptions options, const Clock& clock);

    std::shared_ptr<const Snapshot> Collect(const std::vector<std::string>& provider_ids) override;
    std::string Url() const override { return client_.url(); }
    std::string Kind() const override { return "prometheus"; }

   private:
    std::shared_ptr<const Snapshot> Build();

    PrometheusClient client_;
    PrometheusOptions options_;
    const Clock& clock_;
    std::mutex mutex_;
    std::shared_ptr<const Snapshot> cached_;
    std::chrono::system_clock::time_point cached_at_{};
};

}  // namespace orch::monitoring
