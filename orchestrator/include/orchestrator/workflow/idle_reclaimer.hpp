#pragma once

#include "common/clock.hpp"
#include "orchestrator/workflow/idle_store.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace orch::workflow {

/// The highest GPU utilisation of a candidate's workloads over the last `window`; nullopt when
/// nothing is known (no series). Wired to monitoring::GpuUtilisationReader by main.
using GpuUtilisationFn =
    std::function<Result<std::optional<double>>(const IdleCandidate& candidate, std::chrono::seconds window)>;

/// What the reclaimer reports after each sweep (ops turns it into metrics).
class IdleObserver {
   public:
    virtual ~IdleObserver() = default;
    virtual void OnStep(IdleStep step) = 0;
    virtual void OnReclaimedTotals(const std::vector<ReclaimedHours>& totals) = 0;
};

struct IdleReclaimerOptions {
    std::chrono::seconds interval{60};  ///< between sweeps; also the utilisation window
    int page = 500;                     ///< candidates read per query
    int max_per_sweep = 10'000;         ///< candidates looked at per sweep (bounds one sweep's work)
    /// The retry cap of a stop (`idle.stop_timeout`): a deployment whose nodes are not all
    /// stopped this long after its first node's stop was queued is left as it is (reclaimed).
    std::chrono::seconds stop_timeout{3600};
};

struct IdleSweepReport {
    int looked_at = 0;
    int applied = 0;
    int unknown = 0;  ///< no utilisation known (no series, or the feed failed)
};

/// The periodic sweep of idle GPU reclamation (docs/lifecycle.md): any replica may run it at
/// any time, since every step is a conditional transaction of the IdleStore. Nothing is kept in
/// memory between sweeps, so a kill -9 loses nothing: the watch states are rows.
class IdleReclaimer {
   public:
    /// Every argument must outlive the reclaimer; `observer` may be null.
    IdleReclaimer(
        IdleStore& store,
        GpuUtilisationFn utilisation,
        const Clock& clock,
        IdlePolicies policies,
        IdleReclaimerOptions options,
        IdleObserver* observer = nullptr
    );
    ~IdleReclaimer();
    IdleReclaimer(const IdleReclaimer&) = delete;
    IdleReclaimer& operator=(const IdleReclaimer&) = delete;

    void Start();
    void Stop();
    /// One sweep on the calling thread (tests drive it with a ManualClock).
    Result<IdleSweepReport> SweepOnce();

   private:
    void Work();
    Result<bool> Visit(const IdleCandidate& candidate, IdleSweepReport& report);
    Result<bool> Apply(
        const IdleCandidate& candidate, IdleStep step, const IdlePolicy& policy, IdleSweepReport& report
    );
    IdleChange ChangeFor(const IdleCandidate& candidate, IdleStep step, const IdlePolicy& policy) const;

    IdleStore& store_;
    GpuUtilisationFn utilisation_;
    const Clock& clock_;
    IdlePolicies policies_;
    IdleReclaimerOptions options_;
    IdleObserver* observer_;
    std::atomic<bool> stop_{false};
    std::mutex mutex_;
    std::condition_variable wake_;
    std::thread thread_;
};

}  // namespace orch::workflow
