#include "orchestrator/workflow/lease_sweep.hpp"

#include "common/log.hpp"
#include "orchestrator/domain/iso_time.hpp"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>

namespace orch::workflow {
namespace {

using std::chrono::milliseconds;

// Longest lead first: warning k (1-based) is due once expiry - lead[k-1] has passed.
std::vector<milliseconds> Descending(std::vector<milliseconds> leads) {
    std::sort(leads.begin(), leads.end(), std::greater<>());
    leads.erase(std::unique(leads.begin(), leads.end()), leads.end());
    return leads;
}

domain::Event LeaseEvent(
    domain::EventType type, const DueLease& lease, domain::TimePoint now, Json extra = Json::object()
) {
    domain::Event event;
    event.deployment_id = lease.deployment_id;
    event.type = type;
    event.time = now;
    event.data = std::move(extra);
    event.data["expiresAt"] = domain::FormatIsoTime(lease.expires_at);
    return event;
}

// A failed deployment has nothing running to stop: its lease deletes it.
bool Failed(domain::Status status) {
    return status == domain::Status::kCreateFailed || status == domain::Status::kDeleteFailed ||
           status == domain::Status::kUnknown;
}

std::optional<LeaseExpiryOutcome> Reported(ExpireOutcome outcome) {
    switch (outcome) {
        case ExpireOutcome::kDeleting:
            return LeaseExpiryOutcome::kDeleting;
        case ExpireOutcome::kStopping:
            return LeaseExpiryOutcome::kStopping;
        case ExpireOutcome::kExpired:
            return LeaseExpiryOutcome::kStopped;
        case ExpireOutcome::kBusy:
            return LeaseExpiryOutcome::kBusy;
        case ExpireOutcome::kStale:
            break;
    }
    return std::nullopt;  // another replica or a renewal got there first: nothing this sweep did
}

}  // namespace

std::string_view LeaseExpiryOutcomeName(LeaseExpiryOutcome outcome) {
    switch (outcome) {
        case LeaseExpiryOutcome::kDeleting:
            return "deleting";
        case LeaseExpiryOutcome::kStopping:
            return "stopping";
        case LeaseExpiryOutcome::kStopped:
            return "stopped";
        case LeaseExpiryOutcome::kBusy:
            return "busy";
        case LeaseExpiryOutcome::kGivenUp:
            return "given_up";
    }
    return "unknown";
}

std::vector<std::string> StoppableTypes(const std::optional<tosca::DeploymentKind>& kind) {
    // The types the API's POST .../actions accepts (api/resource_routes.cpp).
    if (kind == tosca::DeploymentKind::kSlurm) {
        return {};
    }
    if (kind == tosca::DeploymentKind::kChronos) {
        return {"tosca.nodes.indigo.Container.Application.Docker.Chronos"};  // its jobs, disabled
    }
    if (kind == tosca::DeploymentKind::kMarathon) {
        return {"tosca.nodes.indigo.Container.Application.Docker.Marathon"};
    }
    if (kind == tosca::DeploymentKind::kKubernetes) {
        return {"tosca.nodes.indigo.Container.Application.Docker.Kubernetes"};  // its Deployments
    }
    return {"tosca.nodes.indigo.Compute"};
}

LeaseSweeper::LeaseSweeper(LeaseStore& store, const Clock& clock, LeaseSweepOptions options, std::function<void()> wake)
    : store_(store), clock_(clock), options_(std::move(options)), wake_(std::move(wake)) {
    options_.warnings = Descending(std::move(options_.warnings));
}

LeaseSweeper::~LeaseSweeper() {
    Stop();
}

void LeaseSweeper::Start() {
    thread_ = std::thread([this] { Run(); });
}

void LeaseSweeper::Stop() {
    {
        const std::lock_guard lock(mutex_);
        stop_.store(true);
    }
    stopped_.notify_all();
    if (thread_.joinable()) {
        thread_.join();
    }
}

void LeaseSweeper::Run() {
    std::unique_lock lock(mutex_);
    while (!stop_.load()) {
        lock.unlock();
        if (const auto swept = SweepOnce(); !swept) {
            ORCH_LOG_WARN("leases: sweep failed", {{"error", swept.error().message}});
        }
        lock.lock();
        stopped_.wait_for(lock, options_.interval, [this] { return stop_.load(); });
    }
}

Result<int> LeaseSweeper::SweepOnce() {
    const domain::TimePoint now = clock_.now();
    const milliseconds horizon = options_.warnings.empty() ? milliseconds(0) : options_.warnings.front();
    ORCH_ASSIGN_OR_RETURN(const auto due, store_.DueLeases(now + horizon, options_.batch));
    int written = 0;
    for (const auto& lease : due) {
        const auto handled = Handle(lease, now);
        if (!handled) {
            // One row's trouble (database blip) must not stop the others; the next sweep retries.
            ORCH_LOG_WARN(
                "leases: cannot handle a lease",
                {{"deployment_id", lease.deployment_id}, {"error", handled.error().message}}
            );
            continue;
        }
        written += *handled;
    }
    return written;
}

void LeaseSweeper::Report(LeaseAction action, LeaseExpiryOutcome outcome) {
    if (observer_ != nullptr) {
        observer_->OnExpiry(action, outcome);
    }
}

Result<int> LeaseSweeper::Expire(const DueLease& lease, domain::TimePoint now) {
    LeaseAction action = lease.action;
    const auto types = StoppableTypes(lease.kind);
    if (action == LeaseAction::kStop && (types.empty() || Failed(lease.status))) {
        action = LeaseAction::kDelete;  // documented fallback: the target cannot stop it
    }
    const auto event = LeaseEvent(
        domain::EventType::kLeaseExpired, lease, now, Json{{"action", std::string(domain::LeaseActionName(action))}}
    );
    ORCH_ASSIGN_OR_RETURN(
        const auto outcome, store_.Expire(lease.deployment_id, lease.expires_at, action, types, event)
    );
    if (outcome == ExpireOutcome::kBusy && now - lease.stop_began.value_or(now) > options_.stop_timeout) {
        // The retry cap: a stop still waiting (an operation that does not end, a node whose stop
        // keeps being retried) this long after its first attempt is given up instead of tried
        // forever. From the first attempt, not the lease's end: after an outage longer than the
        // cap the stop is still tried first.
        return GiveUp(lease, now);
    }
    if (const auto reported = Reported(outcome)) {
        Report(action, *reported);
    }
    if (outcome == ExpireOutcome::kDeleting || outcome == ExpireOutcome::kStopping) {
        ORCH_LOG_INFO(
            "leases: lease expired",
            {{"deployment_id", lease.deployment_id}, {"action", std::string(domain::LeaseActionName(action))}}
        );
        if (wake_) {
            wake_();
        }
        return 1;
    }
    return outcome == ExpireOutcome::kExpired ? 1 : 0;
}

Result<int> LeaseSweeper::GiveUp(const DueLease& lease, domain::TimePoint now) {
    const auto limit = std::chrono::duration_cast<std::chrono::seconds>(options_.stop_timeout).count();
    const std::string reason = "Lease ended at " + domain::FormatIsoTime(lease.expires_at) +
                               ": its nodes could not all be stopped within " + std::to_string(limit) +
                               " s of the first attempt; what runs is left as it is (renew the lease, or stop "
                               "or delete it)";
    const auto event = LeaseEvent(
        domain::EventType::kLeaseExpired,
        lease,
        now,
        Json{{"action", "stop"}, {"outcome", "given_up"}, {"reason", reason}}
    );
    ORCH_ASSIGN_OR_RETURN(
        const bool recorded, store_.AbandonStop(lease.deployment_id, lease.expires_at, reason, event)
    );
    if (!recorded) {
        return 0;
    }
    ORCH_LOG_WARN("leases: stop given up", {{"deployment_id", lease.deployment_id}, {"after_s", limit}});
    Report(LeaseAction::kStop, LeaseExpiryOutcome::kGivenUp);
    return 1;
}

Result<int> LeaseSweeper::Handle(const DueLease& lease, domain::TimePoint now) {
    if (lease.expires_at <= now) {
        return Expire(lease, now);
    }
    // The warnings whose lead time has come; only the latest is sent (a lease set 30 min before
    // its end gets the 1 h warning, not also the 24 h one).
    int owed = 0;
    for (std::size_t i = 0; i < options_.warnings.size(); ++i) {
        if (lease.expires_at - options_.warnings[i] <= now) {
            owed = static_cast<int>(i) + 1;
        }
    }
    if (owed <= lease.warnings_sent) {
        return 0;
    }
    const auto lead = std::chrono::duration_cast<std::chrono::seconds>(lease.expires_at - now);
    const auto event = LeaseEvent(
        domain::EventType::kLeaseWarning, lease, now, Json{{"secondsLeft", static_cast<std::int64_t>(lead.count())}}
    );
    ORCH_ASSIGN_OR_RETURN(
        const bool recorded, store_.RecordWarning(lease.deployment_id, lease.expires_at, owed, event)
    );
    if (recorded && observer_ != nullptr) {
        observer_->OnWarning();
    }
    return recorded ? 1 : 0;
}

}  // namespace orch::workflow
