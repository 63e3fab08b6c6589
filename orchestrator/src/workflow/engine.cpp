#include "orchestrator/workflow/engine.hpp"

#include "common/log.hpp"
#include "common/trace_context.hpp"

#include <algorithm>

namespace orch::workflow {
namespace {

// Stands in when EngineOptions names no observer, so the engine reports unconditionally.
class NoObserver final : public EngineObserver {
   public:
    void ReadyJobs(std::size_t) override {}
    void RunningSteps(std::size_t) override {}
    void StepFinished(std::string_view, StepOutcome, double) override {}
};

EngineObserver& Observer(const EngineOptions& options) {
    static NoObserver none;
    return options.observer != nullptr ? *options.observer : none;
}

}  // namespace

Engine::Engine(WorkflowStore& store, EngineOptions options) : store_(store), options_(std::move(options)) {}

Engine::~Engine() {
    Stop();
}

void Engine::Register(JobKind kind, StepFn step) {
    steps_[kind] = std::move(step);
}

void Engine::Start() {
    threads_.emplace_back([this] { Dispatch(); });
    threads_.emplace_back([this] { Beat(); });
    threads_.emplace_back([this] { Housekeep(); });
    for (int i = 0; i < std::max(1, options_.workers); ++i) {
        threads_.emplace_back([this] { Work(); });
    }
}

void Engine::Stop() {
    {
        const std::lock_guard lock(mutex_);
        if (stop_.exchange(true)) {
            return;
        }
    }
    wake_.notify_all();
    work_ready_.notify_all();
    for (auto& t : threads_) {
        t.join();
    }
    threads_.clear();
}

void Engine::Wake() {
    {
        const std::lock_guard lock(mutex_);
        poke_ = true;
    }
    wake_.notify_all();
}

Result<bool> Engine::RunOneDue() {
    auto jobs = store_.Claim(options_.owner, 1, options_.lease);
    if (!jobs) {
        return jobs.error();
    }
    if (jobs->empty()) {
        return false;
    }
    RunJob(jobs->front(), std::make_shared<CancelToken>());
    return true;
}

std::size_t Engine::running() const {
    const std::lock_guard lock(mutex_);
    return busy_;
}

void Engine::Dispatch() {
    auto error_backoff = std::chrono::milliseconds(0);
    int claim_failures = 0;
    while (!stop_.load()) {
        std::size_t free = 0;
        {
            std::unique_lock lock(mutex_);
            free = static_cast<std::size_t>(options_.workers) -
                   std::min(busy_ + ready_.size(), static_cast<std::size_t>(options_.workers));
        }
        std::size_t claimed = 0;
        if (free > 0) {
            auto jobs = store_.Claim(options_.owner, static_cast<int>(free), options_.lease);
            if (!jobs) {
                // Database down: back off (up to 5 s) and log the first and every 20th failure.
                if (claim_failures++ % 20 == 0) {
                    ORCH_LOG_WARN("workflow: cannot claim jobs", {{"error", jobs.error().message}});
                }
                error_backoff =
                    std::min(std::chrono::milliseconds(5000), error_backoff * 2 + std::chrono::milliseconds(100));
                std::unique_lock lock(mutex_);
                wake_.wait_for(lock, error_backoff, [this] { return stop_.load(); });
                continue;
            } else {
                claim_failures = 0;
                error_backoff = std::chrono::milliseconds(0);
                claimed = jobs->size();
                const std::lock_guard lock(mutex_);
                for (auto& job : *jobs) {
                    ready_.push_back(std::move(job));
                }
                Observer(options_).ReadyJobs(ready_.size());
            }
            if (claimed > 0) {
                work_ready_.notify_all();
            }
        }
        std::unique_lock lock(mutex_);
        // A full batch means more may be due: look again at once (when workers are free).
        if (claimed == free && free > 0) {
            continue;
        }
        wake_.wait_for(lock, options_.idle_poll, [this] { return stop_.load() || poke_; });
        poke_ = false;
    }
}

void Engine::Work() {
    while (true) {
        Job job;
        std::shared_ptr<CancelToken> cancel;
        {
            std::unique_lock lock(mutex_);
            work_ready_.wait(lock, [this] { return stop_.load() || !ready_.empty(); });
            if (stop_.load()) {
                return;  // claimed-but-unstarted jobs are retaken after their lease expires
            }
            job = std::move(ready_.front());
            ready_.erase(ready_.begin());
            cancel = std::make_shared<CancelToken>();
            in_flight_[job.id] = cancel;
            ++busy_;
            Observer(options_).ReadyJobs(ready_.size());
            Observer(options_).RunningSteps(busy_);
        }
        RunJob(job, cancel);
        {
            const std::lock_guard lock(mutex_);
            in_flight_.erase(job.id);
            --busy_;
            Observer(options_).RunningSteps(busy_);
            poke_ = true;  // a worker is free: the dispatcher may claim again
        }
        wake_.notify_all();
    }
}

void Engine::RunJob(const Job& job, const std::shared_ptr<CancelToken>& cancel) {
    // The request that caused the job (recorded in its payload by the store) names every line.
    const auto request_id = job.payload.is_object() ? job.payload.value("request_id", std::string()) : std::string();
    const log::ScopedContext ctx(request_id, job.deployment_id);
    const trace::ScopedTrace trace(
        job.payload.is_object() ? job.payload.value("trace_id", std::string()) : std::string(),
        job.payload.is_object() && job.payload.value("trace_sampled", false)
    );
    const auto started = std::chrono::steady_clock::now();
    const auto step = steps_.find(job.kind);
    const std::string kind(JobKindName(job.kind));
    StepResult result;
    if (step == steps_.end()) {
        ORCH_LOG_ERROR("workflow: unknown job kind; dropping it", {{"kind", kind}});
        result = StepResult::Commit({});
    } else {
        try {
            result = step->second(job, *cancel);
        } catch (const std::exception& e) {
            result = StepResult::Retry(std::chrono::seconds(5), std::string("step failed: ") + e.what());
        }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const StepOutcome outcome = cancel->cancelled() ? StepOutcome::kCancelled
                                : result.retry      ? StepOutcome::kRetry
                                                    : StepOutcome::kCommit;
    Observer(options_).StepFinished(step == steps_.end() ? std::string("unknown") : kind, outcome, seconds);
    if (cancel->cancelled()) {
        ORCH_LOG_INFO("workflow: step result discarded (job cancelled or taken over)", {{"kind", kind}});
        return;
    }
    Status written = result.retry ? store_.Retry(job, options_.owner, result.delay, result.error)
                                  : store_.Commit(job, options_.owner, result.transition);
    if (!written) {
        // kConflict: the lease was lost meanwhile (the effects belong to whoever holds it now).
        // Anything else (database down): the lease expires and the step runs again.
        ORCH_LOG_WARN("workflow: step outcome not written", {{"kind", kind}, {"error", written.error().message}});
    } else if (!result.retry && result.transition.status) {
        // One line per status change, stamped with the request and deployment ids.
        ORCH_LOG_INFO(
            "workflow: deployment status changed",
            {{"kind", kind}, {"status", domain::StatusName(*result.transition.status)}}
        );
    } else if (result.retry) {
        ORCH_LOG_INFO(
            "workflow: step will be retried",
            {{"kind", kind}, {"delay_ms", static_cast<std::int64_t>(result.delay.count())}, {"error", result.error}}
        );
    }
}

void Engine::Beat() {
    const auto period = std::max(std::chrono::milliseconds(100), options_.lease / 3);
    std::unique_lock lock(mutex_);
    while (!stop_.load()) {
        wake_.wait_for(lock, period, [this] { return stop_.load(); });
        if (stop_.load()) {
            return;
        }
        std::vector<std::int64_t> ids;
        for (const auto& [id, token] : in_flight_) {
            ids.push_back(id);
        }
        if (ids.empty()) {
            continue;
        }
        lock.unlock();
        auto lost = store_.Heartbeat(options_.owner, ids, options_.lease);
        lock.lock();
        if (lost) {
            for (const auto id : *lost) {
                if (auto it = in_flight_.find(id); it != in_flight_.end()) {
                    it->second->Cancel();
                }
            }
        }
    }
}

void Engine::Housekeep() {
    // Every process runs it; the purge skips rows another one holds, so they share the work.
    const auto period = std::clamp(
        std::min(options_.deleted_retention, options_.event_retention) / 2,
        std::chrono::milliseconds(100),
        std::chrono::milliseconds(std::chrono::minutes(10))
    );
    constexpr int kBatch = 500;  // one short transaction each; a backlog drains batch by batch
    std::unique_lock lock(mutex_);
    while (!stop_.load()) {
        wake_.wait_for(lock, period, [this] { return stop_.load(); });
        lock.unlock();
        std::int64_t purged = kBatch;
        while (purged == kBatch && !stop_.load()) {
            const auto result = store_.PurgeDeleted(options_.deleted_retention, kBatch);
            if (!result) {
                ORCH_LOG_WARN("workflow: cannot purge deleted deployments", {{"error", result.error().message}});
                break;
            }
            purged = *result;
            if (purged > 0) {
                ORCH_LOG_INFO("workflow: purged deleted deployments past their retention", {{"count", purged}});
            }
        }
        purged = kBatch;
        while (purged == kBatch && !stop_.load()) {
            const auto result = store_.PurgeEvents(options_.event_retention, kBatch);
            if (!result) {
                ORCH_LOG_WARN("workflow: cannot purge old events", {{"error", result.error().message}});
                break;
            }
            purged = *result;
        }
        lock.lock();
    }
}

}  // namespace orch::workflow
