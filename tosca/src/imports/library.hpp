#pragma once

#include "imports/import_resolver.hpp"
#include "types/type_registry.hpp"

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace orch::tosca {

/// One entry of an `imports:` list, with `repositories` already applied.
struct ImportRef {
    std::string reference;
    const yaml::Node* at = nullptr;
    std::string path;
};

/// Reads the `imports` (and `repositories`) sections of a document.
std::vector<ImportRef> CollectImports(const yaml::Node& root, GrammarContext& ctx);

/// The types of a set of imports (and everything they import), on top of the normative types,
/// with the findings inside those documents and stamps to revalidate them.
struct Library {
    std::shared_ptr<const TypeRegistry> registry;
    std::vector<Diagnostic> diagnostics;
    std::vector<ImportStamp> stamps;
};

class DocumentCache;

/// Loads the documents behind `tops` depth-first (bounded depth and count, each document once;
/// parsed documents come from `documents`), and compiles their types. Failures to locate or
/// read a top-level import are reported in `sink` at `tops[i].at`; findings inside imported
/// documents go to the library. `cacheable` is false when some import could not be read (so a
/// later attempt retries).
std::shared_ptr<const Library> BuildLibrary(
    const std::shared_ptr<const TypeRegistry>& normative,
    const std::vector<std::pair<ImportLocation, const ImportRef*>>& tops,
    const ImportResolver& resolver,
    DocumentCache& documents,
    const EngineOptions& options,
    DiagSink& sink,
    bool& cacheable
);

/// Compiled libraries by key (version + import locations), least recently used evicted first,
/// each revalidated against its stamps on lookup. Thread-safe.
class LibraryCache {
   public:
    explicit LibraryCache(std::size_t capacity) : capacity_(capacity) {}

    std::shared_ptr<const Library> Find(const std::string& key, const ImportResolver& resolver);
    void Put(const std::string& key, std::shared_ptr<const Library> library);
    void Clear();

    std::size_t size() const;
    std::uint64_t hits() const;
    std::uint64_t misses() const;

   private:
    using Lru = std::list<std::string>;
    struct Slot {
        std::shared_ptr<const Library> library;
        Lru::iterator position;
    };
    std::size_t capacity_;
    mutable std::mutex mutex_;
    std::unordered_map<std::string, Slot> slots_;
    Lru lru_;
    std::uint64_t hits_ = 0;
    std::uint64_t misses_ = 0;
};

}  // namespace orch::tosca
