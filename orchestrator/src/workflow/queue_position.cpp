#include "queue_position.hpp"

#include "orchestrator/workflow/admission_queue.hpp"

#include <algorithm>
#include <limits>

namespace orch::workflow {
namespace {

// A GPU request waits for GPUs; letting a CPU-only request wait behind it would hold back a
// request that does not need what is scarce.
bool Competes(const WaitingRequest& a, const WaitingRequest& b) {
    return (a.demand.gpus > 0) == (b.demand.gpus > 0);
}

void Add(ShareVector& v, QuotaResource resource, double amount) {
    switch (resource) {
        case QuotaResource::kGpus:
            v.gpus += amount;
            break;
        case QuotaResource::kCpus:
            v.cpus += amount;
            break;
        case QuotaResource::kRamMb:
            v.ram_mb += amount;
            break;
        case QuotaResource::kInstances:
            break;  // not a share dimension
    }
}

// Each group's waiting requests (all of the listing, competing or not) and share (over the
// competing requests' capacity, as the order used it), for the queue metrics.
void Report(
    AdmissionObserver& observer,
    const std::string& issuer,
    const std::vector<WaitingRequest>& listed,
    const std::map<std::string, GroupAccount, std::less<>>& accounts,
    const ShareVector& capacity
) {
    std::map<std::string, GroupQueueFigures, std::less<>> groups;
    for (const auto& w : listed) {
        auto& g = groups[w.group];
        g.group = w.group;
        ++g.waiting;
    }
    for (const auto& [group, account] : accounts) {
        auto& g = groups[group];
        g.group = group;
        g.share = DominantShare(account.usage, capacity, account.weight);
    }
    std::vector<GroupQueueFigures> out;
    out.reserve(groups.size());
    for (auto& entry : groups) {
        out.push_back(std::move(entry.second));
    }
    observer.QueueComputed(issuer, out);
}

// GPUs each group holds now: its group counter of every GPU (reserved + in use).
std::map<std::string, double, std::less<>> HeldGpus(const std::vector<QuotaCounter>& counters) {
    std::map<std::string, double, std::less<>> held;
    for (const auto& c : counters) {
        if (c.key.scope == QuotaScope::kGroup && c.key.gpu_class.empty() && c.key.resource == QuotaResource::kGpus) {
            held[c.key.group] += c.reserved + c.in_use;
        }
    }
    return held;
}

// GPU-hours and held GPUs of a weighted class count `weight` times: the class's group counter and
// history rows repeat GPUs the all-GPU ones already count once, so (weight − 1) × them is added.
Status WeightGpuClasses(
    WorkflowStore& store,
    const std::string& issuer,
    std::chrono::milliseconds half_life,
    const FairShareWeights& weights,
    const std::vector<QuotaCounter>& counters,
    std::map<std::string, GroupAccount, std::less<>>& accounts,
    ShareVector& capacity
) {
    if (weights.gpu_classes.empty()) {
        return Ok();
    }
    const auto extra = [&](const std::string& gpu_class) {
        const auto it = weights.gpu_classes.find(gpu_class);
        return it == weights.gpu_classes.end() ? 0.0 : it->second - 1;
    };
    for (const auto& c : counters) {
        if (c.key.scope == QuotaScope::kGroup && c.key.resource == QuotaResource::kGpus && !c.key.gpu_class.empty()) {
            const double more = extra(c.key.gpu_class) * (c.reserved + c.in_use);
            accounts[c.key.group].usage.gpus += more;
            capacity.gpus += more;
        }
    }
    auto history = store.FairShareClassUsage(issuer, half_life);
    if (!history) {
        return history.error();
    }
    for (const auto& [group, classes] : *history) {
        for (const auto& [gpu_class, hours] : classes) {
            accounts[group].usage.gpus += extra(gpu_class) * hours;
        }
    }
    return Ok();
}

}  // namespace

QueuePlace AdmitNow(
    const std::vector<WaitingRequest>& waiting,
    std::vector<std::size_t> order,
    const std::map<std::string, double, std::less<>>& held_gpus,
    const CycleSites& cycle,
    std::chrono::system_clock::time_point now
) {
    QueuePlace place;
    place.position =
        static_cast<std::size_t>(std::find(order.begin(), order.end(), std::size_t{0}) - order.begin()) + 1;
    if (waiting.empty() || waiting[0].demand.gpus <= 0) {
        place.admit = place.position == 1;
        return place;
    }
    CycleInput in;
    in.waiting = &waiting;
    in.order = std::move(order);
    in.now = now;
    const auto* cohort = cycle.cohorts != nullptr ? cycle.cohorts->CohortOf(waiting[0].group) : nullptr;
    if (cohort != nullptr) {
        in.cohort = *cohort;
        for (const auto& [group, quota] : *cohort) {
            const auto held = held_gpus.find(group);
            in.held[group] = held == held_gpus.end() ? 0.0 : held->second;
        }
    }
    const bool sites_known = !cycle.sites.empty();
    if (sites_known) {
        in.sites = cycle.sites;
    } else {
        // Capacity unknown: every request "fits", so the cycle only applies the cohort's quotas
        // and the first it admits is the next to go (the strict order).
        constexpr double kUnbounded = std::numeric_limits<double>::infinity();
        in.sites = {SiteGpus{kUnbounded, kUnbounded}};
    }
    const auto result = AdmissionCycle(in);
    const auto self =
        std::find_if(result.admitted.begin(), result.admitted.end(), [](const Admitted& a) { return a.request == 0; });
    place.admit =
        sites_known ? self != result.admitted.end() : self == result.admitted.begin() && self != result.admitted.end();
    if (sites_known && place.admit) {
        place.site = self->site;
    }
    return place;
}

Result<QueuePlace> PlaceInQueue(
    WorkflowStore& store,
    const std::string& issuer,
    const WaitingRequest& self,
    std::chrono::system_clock::time_point now,
    const FairShareWeights& weights,
    const FairShareOptions& options,
    std::chrono::milliseconds half_life,
    AdmissionObserver* observer,
    const CycleSites& cycle
) {
    auto listed = store.WaitingRequests(issuer, kMaxWaitingListed);
    if (!listed) {
        return listed.error();
    }
    std::vector<WaitingRequest> waiting;
    waiting.push_back(self);
    for (const auto& w : *listed) {
        if (w.deployment_id != self.deployment_id && Competes(w, self)) {
            waiting.push_back(w);
        }
    }
    const bool cohort = cycle.cohorts != nullptr && cycle.cohorts->CohortOf(self.group) != nullptr;
    if (waiting.size() == 1 && !cohort) {
        if (observer != nullptr) {
            Report(*observer, issuer, *listed, {}, {});
        }
        return QueuePlace{};
    }
    auto counters = store.QuotaCounters(issuer, {});
    if (!counters) {
        return counters.error();
    }
    auto history = store.FairShareUsage(issuer, half_life);
    if (!history) {
        return history.error();
    }
    std::map<std::string, GroupAccount, std::less<>> accounts;
    for (const auto& [group, usage] : *history) {
        accounts[group].usage = usage;
    }
    ShareVector capacity;
    for (const auto& c : *counters) {
        // A GPU-class counter repeats GPUs of its group's all-GPU counter: counted once.
        if (c.key.scope == QuotaScope::kGroup && c.key.gpu_class.empty()) {
            Add(accounts[c.key.group].usage, c.key.resource, c.reserved + c.in_use);
            Add(capacity, c.key.resource, c.reserved + c.in_use);
        }
    }
    ORCH_RETURN_IF_ERROR(WeightGpuClasses(store, issuer, half_life, weights, *counters, accounts, capacity));
    for (const auto& w : waiting) {
        capacity += w.demand;
        accounts[w.group].weight = weights.For(w.group);
    }
    const auto order = FairShareOrder(waiting, accounts, capacity, now, options);
    if (observer != nullptr) {
        Report(*observer, issuer, *listed, accounts, capacity);
    }
    return AdmitNow(waiting, order, HeldGpus(*counters), cycle, now);
}

}  // namespace orch::workflow
