#include "orchestrator/workflow/idle_reclaimer.hpp"

#include "common/log.hpp"

namespace orch::workflow {
namespace {

long Seconds(std::chrono::seconds s) {
    return static_cast<long>(s.count());
}

domain::Event IdleEvent(const IdleCandidate& c, domain::TimePoint now, Json data) {
    domain::Event event;
    event.deployment_id = c.deployment_id;
    event.type = domain::EventType::kIdle;
    event.time = now;
    event.data = std::move(data);
    return event;
}

}  // namespace

IdleReclaimer::IdleReclaimer(
    IdleStore& store,
    GpuUtilisationFn utilisation,
    const Clock& clock,
    IdlePolicies policies,
    IdleReclaimerOptions options,
    IdleObserver* observer
)
    : store_(store),
      utilisation_(std::move(utilisation)),
      clock_(clock),
      policies_(std::move(policies)),
      options_(options),
      observer_(observer) {}

IdleReclaimer::~IdleReclaimer() {
    Stop();
}

void IdleReclaimer::Start() {
    stop_ = false;
    thread_ = std::thread([this] { Work(); });
}

void IdleReclaimer::Stop() {
    {
        const std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) {
        thread_.join();
    }
}

void IdleReclaimer::Work() {
    while (!stop_) {
        if (auto swept = SweepOnce(); !swept) {
            ORCH_LOG_WARN("idle sweep failed", {{"error", swept.error().message}});
        }
        std::unique_lock lock(mutex_);
        wake_.wait_for(lock, options_.interval, [this] { return stop_.load(); });
    }
}

Result<IdleSweepReport> IdleReclaimer::SweepOnce() {
    IdleSweepReport report;
    std::string after;
    while (report.looked_at < options_.max_per_sweep && !stop_) {
        ORCH_ASSIGN_OR_RETURN(const auto page, store_.IdleCandidates(after, options_.page));
        for (const auto& candidate : page) {
            ++report.looked_at;
            if (auto visited = Visit(candidate, report); !visited) {
                return std::move(visited).error();
            }
        }
        if (static_cast<int>(page.size()) < options_.page) {
            break;
        }
        after = page.back().deployment_id;
    }
    if (observer_ != nullptr) {
        if (auto totals = store_.AllReclaimed(); totals) {
            observer_->OnReclaimedTotals(*totals);
        }
    }
    return report;
}

// A feed failure for one deployment is "nothing known" for it (logged), not a failed sweep: one
// site's broken exporter must not stop reclamation elsewhere. A store failure ends the sweep.
Result<bool> IdleReclaimer::Visit(const IdleCandidate& candidate, IdleSweepReport& report) {
    const IdlePolicy& policy = policies_.For(candidate.group);
    if (candidate.watch && candidate.watch->state == IdleState::kStopping) {
        // Stopping goes on node by node whatever the feed says (or whether it answers at all).
        return Apply(candidate, DecideStopping(*candidate.watch, clock_.now(), options_.stop_timeout), policy, report);
    }
    auto utilisation = utilisation_(candidate, options_.interval);
    if (!utilisation) {
        ORCH_LOG_WARN(
            "GPU utilisation unavailable",
            {{"deployment", candidate.deployment_id}, {"error", utilisation.error().message}}
        );
        ++report.unknown;
        return false;
    }
    if (!*utilisation) {
        ++report.unknown;
    }
    return Apply(candidate, DecideIdle(candidate.watch, *utilisation, policy, clock_.now()), policy, report);
}

Result<bool> IdleReclaimer::Apply(
    const IdleCandidate& candidate, IdleStep step, const IdlePolicy& policy, IdleSweepReport& report
) {
    if (step == IdleStep::kNone) {
        return false;
    }
    ORCH_ASSIGN_OR_RETURN(const bool applied, store_.ApplyIdle(ChangeFor(candidate, step, policy)));
    if (applied) {
        ++report.applied;
        if (observer_ != nullptr) {
            observer_->OnStep(step);
        }
        ORCH_LOG_INFO(
            "idle reclamation step",
            {{"deployment", candidate.deployment_id}, {"step", static_cast<int>(step)}, {"group", candidate.group}}
        );
    }
    return applied;
}

IdleChange IdleReclaimer::ChangeFor(const IdleCandidate& c, IdleStep step, const IdlePolicy& policy) const {
    IdleChange change;
    change.deployment_id = c.deployment_id;
    change.step = step;
    change.now = clock_.now();
    change.action = policy.action;
    const std::string action(IdleActionName(policy.action));
    switch (step) {
        case IdleStep::kNotify:
            change.events.push_back(IdleEvent(
                c,
                change.now,
                {{"phase", "notice"},
                 {"action", action},
                 {"noticeSeconds", Seconds(policy.notice)},
                 {"thresholdPercent", policy.threshold_percent},
                 {"idleSeconds",
                  Seconds(std::chrono::duration_cast<std::chrono::seconds>(change.now - c.watch->idle_since))}}
            ));
            break;
        case IdleStep::kReclaim:
            change.gpu_hours = ReclaimedGpuHours(c.gpus, c.watch->idle_since, change.now);
            change.events.push_back(
                IdleEvent(c, change.now, {{"phase", "reclaimed"}, {"action", action}, {"gpuHours", change.gpu_hours}})
            );
            break;
        case IdleStep::kReset:
            change.from = c.watch->state;
            if (c.watch->state == IdleState::kNotified) {
                change.events.push_back(IdleEvent(c, change.now, {{"phase", "cancelled"}}));
            }
            break;
        case IdleStep::kStopGivenUp:
            change.action = IdleAction::kStop;
            change.events.push_back(IdleEvent(
                c,
                change.now,
                {{"phase", "stopGivenUp"},
                 {"action", "stop"},
                 {"stopTimeoutSeconds", Seconds(options_.stop_timeout)},
                 {"reason", "its nodes could not all be stopped in time; what runs is left as it is"}}
            ));
            break;
        case IdleStep::kStopNext:
            change.action = IdleAction::kStop;
            break;
        case IdleStep::kStartWatch:
        case IdleStep::kNone:
            break;
    }
    return change;
}

}  // namespace orch::workflow
