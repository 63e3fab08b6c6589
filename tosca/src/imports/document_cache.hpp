#pragma once

#include "imports/import_resolver.hpp"
#include "imports/library.hpp"
#include "types/type_model.hpp"

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace orch::tosca {

/// One imported document, read and parsed once: its nodes, its type definitions (shared by
/// every library that imports it), its own imports and what was found while reading it.
struct ParsedImport {
    yaml::Document doc;
    std::vector<std::shared_ptr<const TypeDef>> defs;
    std::vector<ImportRef> imports;
    std::vector<Diagnostic> diagnostics;             ///< YAML and header findings
    std::vector<Diagnostic> definition_diagnostics;  ///< type-definition grammar (reported as warnings)
    ImportStamp stamp;
};

/// Reads and parses an import (uncached).
Result<std::shared_ptr<const ParsedImport>> ParseImport(
    const ImportLocation& location, const ImportResolver& resolver, const EngineOptions& options
);

/// About how much memory a parsed import holds: its text's nodes (aliases counted expanded).
std::uint64_t ApproxMemoryBytes(const ParsedImport& parsed);

/// Parsed imports by location, revalidated against their stamps, least recently used evicted
/// first, within `capacity` entries and `max_bytes` (ApproxMemoryBytes; a larger one is not kept). Thread-safe; two
/// threads missing the same document may both parse it (the first stored wins), which is cheaper than holding a lock
/// across I/O.
class DocumentCache {
   public:
    DocumentCache(std::size_t capacity, std::uint64_t max_bytes) : capacity_(capacity), max_bytes_(max_bytes) {}

    Result<std::shared_ptr<const ParsedImport>> Get(
        const ImportLocation& location, const ImportResolver& resolver, const EngineOptions& options
    );
    void Clear();

    struct Usage {
        std::size_t entries = 0;
        std::uint64_t bytes = 0;
    };
    Usage usage();

   private:
    using Lru = std::list<std::string>;
    struct Slot {
        std::shared_ptr<const ParsedImport> parsed;
        Lru::iterator position;
        std::uint64_t bytes;
    };
    void EvictOldest();

    std::size_t capacity_;
    std::uint64_t max_bytes_;
    std::uint64_t bytes_ = 0;
    std::mutex mutex_;
    std::unordered_map<std::string, Slot> slots_;
    Lru lru_;
};

}  // namespace orch::tosca
