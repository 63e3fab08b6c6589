#include "orchestrator/workflow/fair_share.hpp"

#include <algorithm>
#include <cmath>
#include <queue>
#include <tuple>

namespace orch::workflow {
namespace {

using Clock = std::chrono::system_clock;

// Within a group: priority, then age, then id.
bool Before(const WaitingRequest& a, const WaitingRequest& b) {
    return std::tie(b.priority, a.queued_at, a.deployment_id) < std::tie(a.priority, b.queued_at, b.deployment_id);
}

struct GroupQueue {
    std::vector<std::size_t> members;  ///< in Before order
    std::size_t next = 0;
    ShareVector usage;
    double weight = 1;
};

// The heap's entry: the lower share first, then the group name so ties are the same everywhere.
struct Turn {
    double share;
    const std::string* group;
    std::size_t queue;
};
struct LaterTurn {
    bool operator()(const Turn& a, const Turn& b) const {
        return a.share != b.share ? a.share > b.share : *a.group > *b.group;
    }
};

}  // namespace

ShareVector& ShareVector::operator+=(const ShareVector& other) {
    gpus += other.gpus;
    cpus += other.cpus;
    ram_mb += other.ram_mb;
    return *this;
}

double FairShareWeights::For(std::string_view group) const {
    const auto it = groups.find(group);
    return it != groups.end() ? it->second : default_weight;
}

ShareVector DecayedUsage(
    const ShareVector& usage, std::chrono::milliseconds elapsed, std::chrono::milliseconds half_life
) {
    if (half_life.count() <= 0 || elapsed.count() <= 0) {
        return usage;
    }
    const double factor = std::exp2(-static_cast<double>(elapsed.count()) / static_cast<double>(half_life.count()));
    return ShareVector{usage.gpus * factor, usage.cpus * factor, usage.ram_mb * factor};
}

double DominantShare(const ShareVector& usage, const ShareVector& capacity, double weight) {
    double dominant = 0;
    const std::pair<double, double> parts[] = {
        {usage.gpus, capacity.gpus}, {usage.cpus, capacity.cpus}, {usage.ram_mb, capacity.ram_mb}};
    for (const auto& [used, total] : parts) {
        if (total > 0) {
            dominant = std::max(dominant, used / total);
        }
    }
    return dominant / (weight > 0 ? weight : 1.0);
}

std::vector<std::size_t> FairShareOrder(
    const std::vector<WaitingRequest>& waiting,
    const std::map<std::string, GroupAccount, std::less<>>& accounts,
    const ShareVector& capacity,
    Clock::time_point now,
    const FairShareOptions& options
) {
    std::vector<std::size_t> order;
    order.reserve(waiting.size());
    std::vector<std::size_t> starving;
    std::map<std::string_view, GroupQueue> groups;
    for (std::size_t i = 0; i < waiting.size(); ++i) {
        const auto& w = waiting[i];
        if (options.starvation_age.count() > 0 && now - w.queued_at >= options.starvation_age) {
            starving.push_back(i);
        } else {
            groups[w.group].members.push_back(i);
        }
    }
    std::sort(starving.begin(), starving.end(), [&](std::size_t a, std::size_t b) {
        return std::tie(waiting[a].queued_at, waiting[a].deployment_id) <
               std::tie(waiting[b].queued_at, waiting[b].deployment_id);
    });
    order.insert(order.end(), starving.begin(), starving.end());

    std::vector<GroupQueue> queues;
    std::vector<std::string> names;
    queues.reserve(groups.size());
    names.reserve(groups.size());
    for (auto& [name, queue] : groups) {
        std::sort(queue.members.begin(), queue.members.end(), [&](std::size_t a, std::size_t b) {
            return Before(waiting[a], waiting[b]);
        });
        if (const auto account = accounts.find(name); account != accounts.end()) {
            queue.usage = account->second.usage;
            queue.weight = account->second.weight > 0 ? account->second.weight : 1.0;
        }
        names.emplace_back(name);
        queues.push_back(std::move(queue));
    }
    std::priority_queue<Turn, std::vector<Turn>, LaterTurn> turns;
    for (std::size_t q = 0; q < queues.size(); ++q) {
        turns.push(Turn{DominantShare(queues[q].usage, capacity, queues[q].weight), &names[q], q});
    }
    while (!turns.empty()) {
        const Turn turn = turns.top();
        turns.pop();
        auto& queue = queues[turn.queue];
        const std::size_t index = queue.members[queue.next++];
        order.push_back(index);
        // Progressive filling: the group is charged what it would get, then competes again.
        queue.usage += waiting[index].demand;
        if (queue.next < queue.members.size()) {
            turns.push(Turn{DominantShare(queue.usage, capacity, queue.weight), turn.group, turn.queue});
        }
    }
    return order;
}

}  // namespace orch::workflow
