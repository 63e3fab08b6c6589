#include "orchestrator/workflow/caching_template_service.hpp"

#include <algorithm>
#include <functional>
#include <iterator>

namespace orch::workflow {
namespace {

// Template text and parameters, separated by a byte neither contains in practice; the full
// string is compared on a hit, so even a crafted collision only costs a parse.
std::string KeyOf(const std::string& template_text, const Json& parameters) {
    std::string key = parameters.dump();
    key.push_back('\0');
    key += template_text;
    return key;
}

}  // namespace

CachingTemplateService::CachingTemplateService(TemplateService& inner, std::size_t capacity)
    : inner_(inner), capacity_(std::max<std::size_t>(1, capacity)) {}

Result<tosca::DeploymentSpec> CachingTemplateService::Build(const std::string& template_text, const Json& parameters) {
    std::string key = KeyOf(template_text, parameters);
    const std::size_t hash = std::hash<std::string>{}(key);
    if (auto cached = Find(key, hash)) {
        return std::move(*cached);
    }
    auto built = inner_.Build(template_text, parameters);
    if (built) {
        Remember(std::move(key), hash, *built);
    }
    return built;
}

std::optional<tosca::DeploymentSpec> CachingTemplateService::Find(const std::string& key, std::size_t hash) {
    const std::lock_guard lock(mutex_);
    const auto [first, last] = index_.equal_range(hash);
    for (auto it = first; it != last; ++it) {
        if (it->second->key == key) {
            lru_.splice(lru_.begin(), lru_, it->second);
            ++hits_;
            return it->second->spec;
        }
    }
    ++misses_;
    return std::nullopt;
}

void CachingTemplateService::Remember(std::string key, std::size_t hash, const tosca::DeploymentSpec& spec) {
    const std::lock_guard lock(mutex_);
    const auto [first, last] = index_.equal_range(hash);
    for (auto it = first; it != last; ++it) {
        if (it->second->key == key) {
            return;  // another thread built the same spec meanwhile
        }
    }
    lru_.push_front(Entry{std::move(key), spec});
    index_.emplace(hash, lru_.begin());
    if (lru_.size() <= capacity_) {
        return;
    }
    const auto oldest = std::prev(lru_.end());
    const std::size_t oldest_hash = std::hash<std::string>{}(oldest->key);
    const auto [from, to] = index_.equal_range(oldest_hash);
    for (auto it = from; it != to; ++it) {
        if (it->second == oldest) {
            index_.erase(it);
            break;
        }
    }
    lru_.pop_back();
}

CachingTemplateService::CacheStats CachingTemplateService::Stats() const {
    const std::lock_guard lock(mutex_);
    return CacheStats{hits_, misses_, lru_.size()};
}

}  // namespace orch::workflow
