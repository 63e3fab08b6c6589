#include "orchestrator/placement/usage.hpp"

#include <algorithm>

namespace orch::placement {

ResourceTotals& ResourceTotals::operator+=(const ResourceTotals& other) {
    cpus += other.cpus;
    ram_mb += other.ram_mb;
    gpus += other.gpus;
    instances += other.instances;
    return *this;
}

ResourceTotals RequestedResources(const tosca::DeploymentSpec& spec) {
    ResourceTotals totals;
    for (const auto* node : spec.WorkloadNodes()) {
        const int count = std::max(node->count, 0);
        const auto& resources = node->resources;
        totals.cpus += resources.cpus.value_or(0.0) * count;
        totals.ram_mb += resources.mem_mb.value_or(0) * static_cast<std::uint64_t>(count);
        totals.gpus += std::max(resources.gpu.count, 0) * count;
        totals.instances += count;
    }
    return totals;
}

void InMemoryUsageSource::Put(
    const std::string& deployment_id,
    const Requester& owner,
    const std::string& service_id,
    const ResourceTotals& totals
) {
    const std::lock_guard lock(mutex_);
    Requester stored = owner;
    stored.access_token.clear();
    records_[deployment_id] = Record{std::move(stored), service_id, totals};
}

void InMemoryUsageSource::Remove(const std::string& deployment_id) {
    const std::lock_guard lock(mutex_);
    records_.erase(deployment_id);
}

void InMemoryUsageSource::SetFailure(std::string message) {
    const std::lock_guard lock(mutex_);
    failure_ = std::move(message);
}

Result<Usage> InMemoryUsageSource::ActiveUsage(const Requester& requester, const std::string& exclude_deployment_id) {
    const std::lock_guard lock(mutex_);
    if (!failure_.empty()) {
        return Error::Unavailable(failure_);
    }
    Usage usage;
    for (const auto& [id, record] : records_) {
        if (id == exclude_deployment_id || record.owner.user_group != requester.user_group) {
            continue;
        }
        const bool mine = record.owner.issuer == requester.issuer && record.owner.subject == requester.subject;
        usage.group += record.totals;
        if (mine) {
            usage.user += record.totals;
        }
        if (!record.service_id.empty()) {
            usage.group_by_service[record.service_id] += record.totals;
            if (mine) {
                usage.user_by_service[record.service_id] += record.totals;
            }
        }
    }
    return usage;
}

void InMemorySiteHistory::Record(const std::string& service_id, AttemptOutcome outcome) {
    const std::lock_guard lock(mutex_);
    auto& list = by_service_[service_id];
    list.push_back(std::move(outcome));
    constexpr std::size_t kKeep = 100;
    if (list.size() > kKeep) {
        list.erase(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(list.size() - kKeep));
    }
}

std::vector<AttemptOutcome> InMemorySiteHistory::NewestLocked(
    const std::vector<AttemptOutcome>& list, std::size_t limit
) const {
    std::vector<AttemptOutcome> out;
    for (auto rit = list.rbegin(); rit != list.rend() && out.size() < limit; ++rit) {
        out.push_back(*rit);
    }
    return out;
}

std::vector<AttemptOutcome> InMemorySiteHistory::RecentAttempts(const std::string& service_id, std::size_t limit) {
    const std::lock_guard lock(mutex_);
    ++reads_;
    const auto it = by_service_.find(service_id);
    return it == by_service_.end() ? std::vector<AttemptOutcome>{} : NewestLocked(it->second, limit);
}

AttemptsByService InMemorySiteHistory::RecentAttemptsOf(
    const std::vector<std::string_view>& service_ids, std::size_t limit
) {
    const std::lock_guard lock(mutex_);
    ++reads_;
    AttemptsByService out;
    // Nothing recorded yet is common (fresh orchestrator, tests): skip thousands of look-ups.
    if (by_service_.empty()) {
        return out;
    }
    for (const auto id : service_ids) {
        const auto it = by_service_.find(id);
        if (it != by_service_.end() && !out.contains(it->first)) {
            out.emplace(it->first, NewestLocked(it->second, limit));
        }
    }
    return out;
}

std::size_t InMemorySiteHistory::reads() const {
    const std::lock_guard lock(mutex_);
    return reads_;
}

AttemptsByService SiteHistory::RecentAttemptsOf(const std::vector<std::string_view>& service_ids, std::size_t limit) {
    AttemptsByService out;
    for (const auto id : service_ids) {
        std::string key(id);
        if (out.contains(key)) {
            continue;
        }
        auto attempts = RecentAttempts(key, limit);
        if (!attempts.empty()) {
            out.emplace(std::move(key), std::move(attempts));
        }
    }
    return out;
}

}  // namespace orch::placement
