#pragma once

#include "orchestrator/workflow/engine_observer.hpp"
#include "orchestrator/workflow/workflow_store.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace orch::workflow {

/// What a step decided: commit a transition (which completes or replaces the job), or give the
/// job back to be retried later unchanged (transient trouble: database, network).
struct StepResult {
    bool retry = false;
    Transition transition;
    std::chrono::milliseconds delay{0};
    std::string error;

    static StepResult Commit(Transition t) { return StepResult{false, std::move(t), {}, {}}; }
    static StepResult Retry(std::chrono::milliseconds delay, std::string error) {
        return StepResult{true, {}, delay, std::move(error)};
    }
};

/// Tells a running step whether its job was cancelled (deleted deployment) or taken over.
class CancelToken {
   public:
    bool cancelled() const { return cancelled_.load(); }
    void Cancel() { cancelled_.store(true); }

   private:
    std::atomic<bool> cancelled_{false};
};

using StepFn = std::function<StepResult(const Job& job, const CancelToken& cancel)>;

struct EngineOptions {
    std::string owner;                                  ///< this process in leases (instance id)
    int workers = 4;                                    ///< steps running at once
    std::chrono::milliseconds lease{30'000};            ///< a crashed worker's job is retaken after this
    std::chrono::milliseconds idle_poll{200};           ///< how often an idle engine looks for due jobs
    std::chrono::milliseconds max_retry_delay{60'000};  ///< cap of the exponential retry backoff
    /// How long the audit record of a deleted deployment is kept (deployments.deleted_retention);
    /// housekeeping purges older ones every retention/2, at least every 10 minutes.
    std::chrono::milliseconds deleted_retention{std::chrono::hours(24 * 30)};
    /// How long events stay in the durable log (events.retention); purged by the same housekeeping.
    std::chrono::milliseconds event_retention{std::chrono::hours(24 * 7)};
    /// Told about queue depths and finished steps (metrics); must outlive the engine. Null: nobody.
    EngineObserver* observer = nullptr;
};

/// Runs workflow steps from the job table on a bounded set of worker threads. Several engines
/// (threads of one process or several processes) share one database; each job runs once at a
/// time thanks to leases, and its effects commit only while the lease is held.
class Engine {
   public:
    Engine(WorkflowStore& store, EngineOptions options);
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    void Register(JobKind kind, StepFn step);
    void Start();
    /// Stops claiming, waits for running steps (they finish their current call), joins threads.
    void Stop();
    /// Look for due jobs now (the API just queued one).
    void Wake();
    /// Claims one due job and runs it on the calling thread, committing or retrying its outcome
    /// as a worker does; false when none was due. For tests that drive the steps one by one (with
    /// a ManualClock deciding what is due) on an engine that was not started.
    Result<bool> RunOneDue();

    std::size_t running() const;

   private:
    void Dispatch();
    void Work();
    void Beat();
    void Housekeep();
    void RunJob(const Job& job, const std::shared_ptr<CancelToken>& cancel);

    WorkflowStore& store_;
    EngineOptions options_;
    std::map<JobKind, StepFn> steps_;
    std::atomic<bool> stop_{false};
    mutable std::mutex mutex_;
    std::condition_variable wake_;        // dispatcher: new work or a free worker
    std::condition_variable work_ready_;  // workers: a job was handed over
    std::vector<Job> ready_;
    std::map<std::int64_t, std::shared_ptr<CancelToken>> in_flight_;
    std::size_t busy_ = 0;
    bool poke_ = false;
    std::vector<std::thread> threads_;
};

}  // namespace orch::workflow
