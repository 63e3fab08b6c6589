#pragma once

#include "common/clock.hpp"
#include "orchestrator/workflow/iam_clients.hpp"
#include "orchestrator/workflow/workflow_store.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace orch::workflow {

struct IamClientSweepOptions {
    std::chrono::milliseconds interval{std::chrono::seconds(60)};  ///< iam_clients.keeper_period
    /// Records younger than this are left alone: their registration may still be in flight on
    /// some replica (iam_clients.keeper_grace).
    std::chrono::milliseconds grace{std::chrono::minutes(10)};
    int batch = 100;  ///< deployments looked at per sweep, oldest record first
};

/// The keeper's periodic job: deletes at their issuers the clients of deployments that are gone
/// (purged, DELETE_COMPLETE, or CREATE_FAILED: no attempt of theirs runs), which the delete step
/// could not (an issuer down, a crash, a delete racing a registration). Nothing is kept in the
/// process and every delete is idempotent, so any number of replicas may sweep at once. A record
/// a crash left half-written (registering) cannot be resolved by RFC 7592 and stays, logged on
/// each sweep for the operator (docs/api.md "IAM clients").
class IamClientSweeper {
   public:
    /// Every argument must outlive the sweeper.
    IamClientSweeper(
        IamClientRegistry& registry, WorkflowStore& deployments, const Clock& clock, IamClientSweepOptions options
    );
    ~IamClientSweeper();
    IamClientSweeper(const IamClientSweeper&) = delete;
    IamClientSweeper& operator=(const IamClientSweeper&) = delete;

    void Start();
    void Stop();
    /// One sweep on the calling thread (tests drive it with a ManualClock): how many deployments'
    /// clients it released.
    Result<int> SweepOnce();

   private:
    void Run();

    IamClientRegistry& registry_;
    WorkflowStore& deployments_;
    const Clock& clock_;
    IamClientSweepOptions options_;
    std::atomic<bool> stop_{false};
    std::mutex mutex_;
    std::condition_variable stopped_;
    std::thread thread_;
};

}  // namespace orch::workflow
