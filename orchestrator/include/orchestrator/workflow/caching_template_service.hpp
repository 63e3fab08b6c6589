#pragma once

#include "orchestrator/workflow/template_service.hpp"

#include <cstddef>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace orch::workflow {

/// A TemplateService that remembers the last `capacity` specs it built, keyed by template text
/// and parameters. POST /deployments builds the spec to validate the request; the workflow's
/// first step builds it again from the stored text: with the cache the second build is a copy,
/// not a parse (the parse is most of a create's CPU). Failures are not cached. Thread-safe.
class CachingTemplateService final : public TemplateService {
   public:
    CachingTemplateService(TemplateService& inner, std::size_t capacity);

    Result<tosca::DeploymentSpec> Build(const std::string& template_text, const Json& parameters) override;
    Status Check(const std::string& template_text) override { return inner_.Check(template_text); }

    struct CacheStats {
        std::size_t hits = 0, misses = 0, size = 0;
    };
    CacheStats Stats() const;

   private:
    struct Entry {
        std::string key;  ///< the full key, so a hash collision is a miss, never a wrong spec
        tosca::DeploymentSpec spec;
    };
    std::optional<tosca::DeploymentSpec> Find(const std::string& key, std::size_t hash);
    void Remember(std::string key, std::size_t hash, const tosca::DeploymentSpec& spec);

    TemplateService& inner_;
    const std::size_t capacity_;
    mutable std::mutex mutex_;
    std::list<Entry> lru_;  ///< most recently used first
    std::unordered_multimap<std::size_t, std::list<Entry>::iterator> index_;
    std::size_t hits_ = 0;
    std::size_t misses_ = 0;
};

}  // namespace orch::workflow
