#include "orchestrator/workflow/caching_template_service.hpp"

#include "tosca/spec_footprint.hpp"

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

bool AcceptsAll(const Json& accepted, const std::vector<std::string>& names) {
    return std::all_of(names.begin(), names.end(), [&](const std::string& name) {
        return accepted.is_object() && accepted.contains(name);
    });
}

}  // namespace

Result<TemplateCacheOptions> TemplateCacheOptionsFromConfig(const ConfigTree& config) {
    TemplateCacheOptions options;
    auto entries =
        config.GetInt("tosca.template_cache_entries", static_cast<std::int64_t>(options.max_entries), 1, 1'000'000);
    if (!entries) {
        return std::move(entries).error();
    }
    options.max_entries = static_cast<std::size_t>(*entries);
    auto bytes = config.GetBytes("tosca.template_cache_bytes", options.max_bytes);
    if (!bytes) {
        return std::move(bytes).error();
    }
    options.max_bytes = *bytes;
    return options;
}

CachingTemplateService::CachingTemplateService(TemplateService& inner, TemplateCacheOptions options)
    : inner_(inner), capacity_(std::max<std::size_t>(1, options.max_entries)), max_bytes_(options.max_bytes) {}

Result<tosca::DeploymentSpec> CachingTemplateService::Build(
    const std::string& template_text, const Json& parameters, const Json& accepted
) {
    std::string key = KeyOf(template_text, parameters);
    const std::size_t hash = std::hash<std::string>{}(key);
    if (auto cached = Find(key, hash); cached && AcceptsAll(accepted, cached->accepted_unknown_parameters)) {
        return std::move(*cached);
    }
    // A spec built for the workflow may carry unknown parameters its stored row was accepted
    // with: a request sending the same text and parameters is checked again (and refused).
    auto built = inner_.Build(template_text, parameters, accepted);
    if (built) {
        // Estimated outside the lock: walking a large spec must not stall other requests' lookups.
        const std::uint64_t bytes = sizeof(Entry) + key.capacity() + tosca::ApproxMemoryBytes(*built);
        Remember(std::move(key), hash, *built, bytes);
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

void CachingTemplateService::Remember(
    std::string key, std::size_t hash, const tosca::DeploymentSpec& spec, std::uint64_t bytes
) {
    const std::lock_guard lock(mutex_);
    const auto [first, last] = index_.equal_range(hash);
    for (auto it = first; it != last; ++it) {
        if (it->second->key == key) {
            return;  // another thread built the same spec meanwhile
        }
    }
    if (bytes > max_bytes_) {
        return;  // it alone would fill the cache: serve it, keep the others
    }
    lru_.push_front(Entry{std::move(key), spec, bytes});
    index_.emplace(hash, lru_.begin());
    bytes_ += bytes;
    while (lru_.size() > capacity_ || bytes_ > max_bytes_) {
        EvictOldest();
    }
}

void CachingTemplateService::EvictOldest() {
    const auto oldest = std::prev(lru_.end());
    const std::size_t oldest_hash = std::hash<std::string>{}(oldest->key);
    const auto [from, to] = index_.equal_range(oldest_hash);
    for (auto it = from; it != to; ++it) {
        if (it->second == oldest) {
            index_.erase(it);
            break;
        }
    }
    bytes_ -= oldest->bytes;
    lru_.pop_back();
}

CachingTemplateService::CacheStats CachingTemplateService::Stats() const {
    const std::lock_guard lock(mutex_);
    return CacheStats{hits_, misses_, lru_.size(), bytes_};
}

}  // namespace orch::workflow
