#include "orchestrator/workflow/site_version_cache.hpp"

#include <algorithm>

namespace orch::workflow {

SiteVersionCache::SiteVersionCache(const Clock& clock, std::chrono::milliseconds ttl, std::size_t max_sites)
    : clock_(clock), ttl_(ttl), max_sites_(std::max<std::size_t>(1, max_sites)) {}

std::string SiteVersionCache::VersionOf(connectors::Connector& connector, const connectors::SiteTarget& target) {
    const std::string key = target.site_id + '\n' + target.service_id;
    {
        const std::lock_guard lock(mutex_);
        const auto it = entries_.find(key);
        if (it != entries_.end() && clock_.steady_now() < it->second.until) {
            return it->second.version;
        }
    }
    // Asked without the lock: a slow site must not hold up the other workers' lookups.
    const auto answered = connector.SiteVersion(target);
    const auto* version = std::get_if<std::string>(&answered);
    Entry entry{
        version != nullptr ? *version : std::string(connectors::kUnknownSiteVersion),
        clock_.steady_now() + (version != nullptr ? ttl_ : ttl_ / 12)};
    const std::lock_guard lock(mutex_);
    if (entries_.size() >= max_sites_ && entries_.count(key) == 0) {
        const auto oldest = std::min_element(entries_.begin(), entries_.end(), [](const auto& a, const auto& b) {
            return a.second.until < b.second.until;
        });
        entries_.erase(oldest);
    }
    entries_[key] = entry;
    return entry.version;
}

}  // namespace orch::workflow
