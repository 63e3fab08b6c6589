#include "imports/document_cache.hpp"

#include "types/normative.hpp"
#include "types/type_parser.hpp"
#include "yaml/loader.hpp"

namespace orch::tosca {
namespace {

/// The minor version the document declares (3 when it declares none we read: reported apart).
int DeclaredMinor(const yaml::Node& root) {
    const yaml::Node* version = root.IsMapping() ? root.Find("tosca_definitions_version") : nullptr;
    const auto canonical =
        version != nullptr && version->IsScalar() ? CanonicalToscaVersion(version->text) : std::nullopt;
    return canonical ? ToscaMinorVersion(*canonical) : 3;
}

void CheckHeader(const yaml::Node& root, const std::string& logical, DiagSink& sink) {
    if (!root.IsMapping()) {
        sink.Error(
            DiagnosticCode::kImport,
            &root,
            Path(),
            "Failed to parse remote TOSCA dependency " + logical + ": the document is not a mapping"
        );
        return;
    }
    const Path version_path = Path().Key("tosca_definitions_version");
    const yaml::Node* version = root.Find("tosca_definitions_version");
    if (version == nullptr || !version->IsScalar()) {
        sink.Error(
            DiagnosticCode::kVersion,
            &root,
            version_path,
            "the imported document " + logical + " has no tosca_definitions_version"
        );
    } else if (!CanonicalToscaVersion(version->text)) {
        const auto profile = UnsupportedToscaProfile(version->text);
        sink.Error(
            DiagnosticCode::kVersion,
            version,
            version_path,
            "the imported document declares unsupported " +
                (profile ? "profile \"" + version->text + "\" (" + *profile + " is not supported)"
                         : "version \"" + version->text + "\"")
        );
    }
    if (const yaml::Node* topology = root.Find("topology_template"); topology != nullptr) {
        sink.Warning(
            DiagnosticCode::kImportedTopology,
            topology,
            Path().Key("topology_template"),
            "the topology of an imported document is ignored; only its types are used"
        );
    }
}

}  // namespace

Result<std::shared_ptr<const ParsedImport>> ParseImport(
    const ImportLocation& location, const ImportResolver& resolver, const EngineOptions& options
) {
    auto text = resolver.Read(location);
    if (!text) {
        return std::move(text).error();
    }
    auto parsed = std::make_shared<ParsedImport>();
    parsed->stamp = text->stamp;
    DiagSink sink(options.limits.max_diagnostics);
    const yaml::LoadLimits limits{
        options.limits.max_document_bytes,
        options.limits.max_depth,
        options.limits.max_yaml_nodes,
        options.limits.max_alias_expansion};
    parsed->doc = yaml::LoadYaml(text->text, location.logical, limits, sink);
    if (parsed->doc.root != nullptr) {
        const yaml::Node& root = *parsed->doc.root;
        CheckHeader(root, location.logical, sink);
        const int minor = DeclaredMinor(root);
        GrammarContext ctx{sink, options.mode == Mode::kStrict, minor};
        if (root.IsMapping()) {
            parsed->imports = CollectImports(root, ctx);
        }
        DiagSink defs(options.limits.max_diagnostics);
        GrammarContext defs_ctx{defs, options.mode == Mode::kStrict, minor};
        for (auto& def : ParseTypeSections(root, defs_ctx)) {
            parsed->defs.push_back(std::move(def));
        }
        parsed->definition_diagnostics = defs.Take();
    }
    parsed->diagnostics = sink.Take();
    return std::shared_ptr<const ParsedImport>(std::move(parsed));
}

Result<std::shared_ptr<const ParsedImport>> DocumentCache::Get(
    const ImportLocation& location, const ImportResolver& resolver, const EngineOptions& options
) {
    std::shared_ptr<const ParsedImport> cached;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (const auto it = slots_.find(location.logical); it != slots_.end()) {
            cached = it->second.parsed;
            lru_.splice(lru_.begin(), lru_, it->second.position);
        }
    }
    if (cached != nullptr && resolver.StillValid(cached->stamp)) {
        return cached;
    }
    auto parsed = ParseImport(location, resolver, options);
    if (!parsed) {
        return parsed;
    }
    const std::uint64_t bytes = ApproxMemoryBytes(**parsed) + location.logical.size();
    std::lock_guard<std::mutex> lock(mutex_);
    if (const auto it = slots_.find(location.logical); it != slots_.end()) {
        bytes_ -= it->second.bytes;  // replaced by the fresh parse below
        lru_.erase(it->second.position);
        slots_.erase(it);
    }
    if (capacity_ == 0 || bytes > max_bytes_) {
        return parsed;  // served, not kept
    }
    while (!slots_.empty() && (slots_.size() >= capacity_ || bytes_ + bytes > max_bytes_)) {
        EvictOldest();
    }
    lru_.push_front(location.logical);
    slots_.emplace(location.logical, Slot{*parsed, lru_.begin(), bytes});
    bytes_ += bytes;
    return parsed;
}

void DocumentCache::EvictOldest() {
    const auto it = slots_.find(lru_.back());
    bytes_ -= it->second.bytes;
    slots_.erase(it);
    lru_.pop_back();
}

std::uint64_t ApproxMemoryBytes(const ParsedImport& parsed) {
    const std::uint64_t text = parsed.doc.root != nullptr ? parsed.doc.root->bytes : 0;
    return parsed.doc.arena->node_count() * sizeof(yaml::Node) + text;
}

DocumentCache::Usage DocumentCache::usage() {
    std::lock_guard<std::mutex> lock(mutex_);
    return Usage{slots_.size(), bytes_};
}

void DocumentCache::Clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    slots_.clear();
    lru_.clear();
    bytes_ = 0;
}

}  // namespace orch::tosca
