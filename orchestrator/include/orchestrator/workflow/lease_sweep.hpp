#pragma once

#include "common/clock.hpp"
#include "orchestrator/workflow/lease_store.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

namespace orch::workflow {

struct LeaseSweepOptions {
    /// Lead times before expiry at which the owner is warned (event + callback), any order.
    std::vector<std::chrono::milliseconds> warnings{std::chrono::hours(24), std::chrono::hours(1)};
    /// How often a sweep runs; an expiry is acted on at most this late (plus the step's run).
    std::chrono::milliseconds interval{std::chrono::seconds(15)};
    int batch = 200;  ///< leases looked at per sweep (the soonest first)
    /// The retry cap of an expiry with action stop: a stop that still has to wait (another
    /// operation, a node's stop being retried) this long after its first attempt is given up
    /// (LeaseStore::AbandonStop) rather than tried at every sweep forever.
    std::chrono::milliseconds stop_timeout{std::chrono::hours(1)};
};

/// What a sweep did, for metrics (ops::LeaseMetrics); called on the sweeping thread.
enum class LeaseExpiryOutcome {
    kDeleting,  ///< the delete was queued
    kStopping,  ///< a node's stop was queued
    kStopped,   ///< nothing (left) to stop: the lease is over
    kBusy,      ///< another operation runs: the next sweep tries again
    kGivenUp,   ///< the stop did not finish within stop_timeout: the lease ended as it was
};
std::string_view LeaseExpiryOutcomeName(LeaseExpiryOutcome outcome);  ///< "deleting", "stopping", ...

class LeaseObserver {
   public:
    virtual ~LeaseObserver() = default;
    virtual void OnWarning() = 0;  ///< a warning was recorded (by this process)
    virtual void OnExpiry(LeaseAction action, LeaseExpiryOutcome outcome) = 0;
};

/// Warns about and ends leases (docs/lifecycle.md "Leases"). Nothing is kept in the process:
/// every sweep reads what is due from the database and each write is guarded there, so any
/// number of replicas may sweep at once, and a replica killed mid-sweep loses nothing (the next
/// sweep of any replica finds the same rows). The action itself runs as an ordinary workflow job.
class LeaseSweeper {
   public:
    /// `store` and `clock` must outlive the sweeper. `wake` (may be empty) is called after a
    /// sweep queued workflow jobs, so the engine looks for them at once.
    LeaseSweeper(LeaseStore& store, const Clock& clock, LeaseSweepOptions options, std::function<void()> wake);
    ~LeaseSweeper();
    LeaseSweeper(const LeaseSweeper&) = delete;
    LeaseSweeper& operator=(const LeaseSweeper&) = delete;

    /// Set before Start; may be null. Must outlive the sweeper.
    void SetObserver(LeaseObserver* observer) { observer_ = observer; }
    void Start();
    void Stop();
    /// One sweep on the calling thread (tests drive it with a ManualClock); how many warnings
    /// and expiry actions it wrote.
    Result<int> SweepOnce();

   private:
    void Run();
    Result<int> Handle(const DueLease& lease, domain::TimePoint now);
    Result<int> Expire(const DueLease& lease, domain::TimePoint now);
    Result<int> GiveUp(const DueLease& lease, domain::TimePoint now);
    void Report(LeaseAction action, LeaseExpiryOutcome outcome);

    LeaseStore& store_;
    const Clock& clock_;
    LeaseSweepOptions options_;
    std::function<void()> wake_;
    LeaseObserver* observer_ = nullptr;
    std::atomic<bool> stop_{false};
    std::mutex mutex_;
    std::condition_variable stopped_;
    std::thread thread_;
};

/// The node types an expiry with action stop stops for a deployment of `kind` (those its
/// start/stop actions act on); empty when that target takes no actions: the lease then deletes.
std::vector<std::string> StoppableTypes(const std::optional<tosca::DeploymentKind>& kind);

}  // namespace orch::workflow
