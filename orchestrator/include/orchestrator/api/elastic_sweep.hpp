#pragma once

// The elastic-cluster autoscaler: a periodic sweep any replica may run. For each elastic cluster
// it reads the cluster's queue signal, decides with DecideElastic (hysteresis, cool-down, bounded
// steps within min/max) and starts the new count through BeginDeploymentUpdate, the path of a
// manual PUT. Its memory and turns live in PostgreSQL (ElasticStore), so a kill -9 loses nothing
// and two replicas never decide for one cluster at once.
#include "common/result.hpp"
#include "orchestrator/api/api_context.hpp"
#include "orchestrator/workflow/elastic_policy.hpp"
#include "orchestrator/workflow/elastic_store.hpp"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

namespace orch::api {

/// The cluster's queue length now (pending jobs/pods); nullopt when the feed has no series for it.
using QueueSignal = std::function<Result<std::optional<double>>(const domain::Deployment&)>;

struct ElasticSweepOptions {
    std::chrono::milliseconds interval{std::chrono::seconds(30)};
    int batch = 100;                                            ///< deployments looked at per sweep, at most
    workflow::ElasticSettings settings;                         ///< the operator's defaults
    std::map<std::string, workflow::ElasticSettings> by_group;  ///< a group's own policy (SLA file)
};

class ElasticSweep {
   public:
    ElasticSweep(ApiContext& ctx, workflow::ElasticStore& store, QueueSignal signal, ElasticSweepOptions options);
    ~ElasticSweep();
    ElasticSweep(const ElasticSweep&) = delete;
    ElasticSweep& operator=(const ElasticSweep&) = delete;

    void Start();
    void Stop();
    /// One pass over the candidates; the number of scales started (tests drive it directly).
    int RunOnce();

   private:
    bool SweepOne(const std::string& deployment_id);
    /// Starts the scale as a PUT would, `event` (the decision) recorded in its transaction.
    bool Apply(
        const domain::Deployment& d,
        const workflow::ElasticDecision& decision,
        const std::string& node,
        const domain::Event& event
    );

    ApiContext& ctx_;
    workflow::ElasticStore& store_;
    QueueSignal signal_;
    ElasticSweepOptions options_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace orch::api
