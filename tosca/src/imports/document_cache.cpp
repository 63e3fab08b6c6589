#include "imports/document_cache.hpp"

#include "types/definition_parser.hpp"
#include "types/normative.hpp"
#include "types/type_parser.hpp"
#include "values/value_checker.hpp"
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

/// The inputs of an imported document's topology are not used, but a default its own type or
/// constraints refuse is a broken document: strict mode refuses it (compat warns). Only inputs
/// of normative types are checked (the document's own data types are not assembled yet).
void CheckImportedInputs(const yaml::Node& root, int minor, bool strict, DiagSink& sink) {
    const yaml::Node* topology = root.Find("topology_template");
    const yaml::Node* inputs = topology != nullptr && topology->IsMapping() ? topology->Find("inputs") : nullptr;
    if (inputs == nullptr || !inputs->IsMapping()) {
        return;
    }
    const Path topology_path = Path().Key("topology_template");  // a Path views its parent
    const Path path = topology_path.Key("inputs");
    DiagSink ignored(1);  // the definitions' grammar: the imported topology is otherwise ignored
    GrammarContext ctx{ignored, false, minor};
    const std::shared_ptr<const TypeRegistry> normative =
        NormativeTypes("tosca_simple_yaml_1_" + std::to_string(minor));
    const LiteralTyping typing = strict ? LiteralTyping::kYamlTyped : LiteralTyping::kTextual;
    for (const PropertyDef& def : ParsePropertyDefs(inputs, DefinitionKind::kInput, path, ctx)) {
        DiagSink quiet(1);
        ValueChecker checker(*normative, typing, quiet);
        if (def.default_value == nullptr || !checker.IsKnownValueType(def.schema.type)) {
            continue;
        }
        checker.Check(*def.default_value, def.schema, path.Key(def.name));
        const std::vector<Diagnostic> found = quiet.Take();
        if (HasErrors(found)) {
            sink.StrictError(
                strict,
                DiagnosticCode::kInputValue,
                def.default_value,
                path.Key(def.name),
                "the imported topology's input '" + def.name +
                    "' has a default its definition refuses: " + found.front().message
            );
        }
    }
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
        if (root.IsMapping()) {
            CheckImportedInputs(root, minor, options.mode == Mode::kStrict, sink);
        }
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
