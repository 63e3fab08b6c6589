#pragma once

#include "common/config.hpp"
#include "orchestrator/workflow/template_service.hpp"

#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace orch::workflow {

/// Bounds of the parsed-template cache: entries, and bytes (the key's text plus the spec's
/// estimated memory): a spec's size follows its template (metadata, properties, inputs), so an
/// entry count alone would let a few large templates hold gigabytes.
struct TemplateCacheOptions {
    std::size_t max_entries = 256;
    std::uint64_t max_bytes = 64u << 20;
};

/// Reads tosca.template_cache_entries and tosca.template_cache_bytes.
Result<TemplateCacheOptions> TemplateCacheOptionsFromConfig(const ConfigTree& config);

/// A TemplateService that remembers the specs it built most recently, keyed by template text and
/// parameters, within TemplateCacheOptions' entry and byte bounds (least recently used first out;
/// an entry larger than the byte bound alone is not kept). POST /deployments builds the spec to
/// validate the request; the workflow's first step builds it again from the stored text: with the
/// cache the second build is a copy, not a parse (the parse is most of a create's CPU). Failures
/// are not cached. Thread-safe.
class CachingTemplateService final : public TemplateService {
   public:
    CachingTemplateService(TemplateService& inner, TemplateCacheOptions options);
    CachingTemplateService(TemplateService& inner, std::size_t capacity)
        : CachingTemplateService(inner, TemplateCacheOptions{capacity}) {}

    Result<tosca::DeploymentSpec> Build(const std::string& template_text, const Json& parameters, const Json& accepted)
        override;
    Status Check(const std::string& template_text) override { return inner_.Check(template_text); }

    struct CacheStats {
        std::size_t hits = 0, misses = 0, size = 0;
        std::uint64_t bytes = 0;  ///< estimated, of the entries kept
    };
    CacheStats Stats() const;

   private:
    struct Entry {
        std::string key;  ///< the full key, so a hash collision is a miss, never a wrong spec
        tosca::DeploymentSpec spec;
        std::uint64_t bytes = 0;
    };
    std::optional<tosca::DeploymentSpec> Find(const std::string& key, std::size_t hash);
    void Remember(std::string key, std::size_t hash, const tosca::DeploymentSpec& spec, std::uint64_t bytes);
    void EvictOldest();

    TemplateService& inner_;
    const std::size_t capacity_;
    const std::uint64_t max_bytes_;
    std::uint64_t bytes_ = 0;
    mutable std::mutex mutex_;
    std::list<Entry> lru_;  ///< most recently used first
    std::unordered_multimap<std::size_t, std::list<Entry>::iterator> index_;
    std::size_t hits_ = 0;
    std::size_t misses_ = 0;
};

}  // namespace orch::workflow
