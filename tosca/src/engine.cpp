#include "tosca/engine.hpp"

#include "common/log.hpp"
#include "imports/document_cache.hpp"
#include "imports/library.hpp"
#include "spec/spec_builder.hpp"
#include "topology/topology_checker.hpp"
#include "types/definitions_check.hpp"
#include "types/normative.hpp"
#include "types/type_parser.hpp"
#include "yaml/loader.hpp"

#include <algorithm>

namespace orch::tosca {
namespace {

constexpr std::string_view kVersionKey = "tosca_definitions_version";

std::string Trim(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
        text.remove_prefix(1);
    }
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
        text.remove_suffix(1);
    }
    return std::string(text);
}

/// tosca_definitions_version: present, supported, and (a warning otherwise) the first key.
std::optional<std::string> CheckVersion(const yaml::Node& root, DiagSink& sink) {
    const Path path = Path().Key(kVersionKey);
    const yaml::Node* version = root.Find(kVersionKey);
    if (version == nullptr || !version->IsScalar()) {
        sink.Error(
            DiagnosticCode::kVersion,
            version != nullptr ? version : &root,
            path,
            "Template is missing required field \"tosca_definitions_version\""
        );
        return std::nullopt;
    }
    auto canonical = CanonicalToscaVersion(version->text);
    if (const auto profile = canonical ? std::nullopt : UnsupportedToscaProfile(version->text)) {
        sink.Error(
            DiagnosticCode::kVersion,
            version,
            path,
            "The TOSCA profile \"" + version->text + "\" (" + *profile +
                ") is not supported: this engine reads the TOSCA Simple Profile in YAML, \"tosca_simple_yaml_1_0\" "
                "to \"tosca_simple_yaml_1_3\""
        );
        return std::nullopt;
    }
    if (!canonical) {
        sink.Error(
            DiagnosticCode::kVersion,
            version,
            path,
            "The template version \"" + version->text +
                "\" is invalid. Valid versions are \"tosca_simple_yaml_1_0\", \"tosca_simple_yaml_1_1\", "
                "\"tosca_simple_yaml_1_2\", \"tosca_simple_yaml_1_3\""
        );
        return std::nullopt;
    }
    if (root.entries.front().key->text != kVersionKey) {
        sink.Warning(
            DiagnosticCode::kVersion,
            root.entries.front().key,
            path,
            "tosca_definitions_version should be the first key of the template"
        );
    }
    return canonical;
}

bool DefinesTypes(const yaml::Node& root) {
    return std::any_of(kAllTypeKinds.begin(), kAllTypeKinds.end(), [&](TypeKind kind) {
        return root.Find(TypeKindSection(kind)) != nullptr;
    });
}

}  // namespace

struct TemplateEngine::Impl {
    explicit Impl(EngineOptions opts)
        : options(std::move(opts)),
          resolver(options),
          documents(2 * options.max_cached_libraries, options.max_cached_import_bytes),
          cache(options.max_cached_libraries) {}

    EngineOptions options;
    ImportResolver resolver;
    mutable DocumentCache documents;
    mutable LibraryCache cache;

    /// The types a template sees: normative ← its imports (cached) ← its own definitions.
    std::shared_ptr<const TypeRegistry> Types(
        const yaml::Node& root,
        const std::string& version,
        const TemplateRequest& request,
        DiagSink& sink,
        bool& imports_ok
    ) const {
        imports_ok = true;
        GrammarContext ctx{sink, options.mode == Mode::kStrict, ToscaMinorVersion(version)};
        std::shared_ptr<const TypeRegistry> registry = NormativeTypes(version);
        const std::vector<ImportRef> refs = CollectImports(root, ctx);
        std::vector<std::pair<ImportLocation, const ImportRef*>> tops;
        std::string key = version + (options.mode == Mode::kStrict ? "\nstrict" : "\ncompat");
        for (const ImportRef& ref : refs) {
            auto location = resolver.Locate(ref.reference, nullptr, request.base_directory);
            if (!location) {
                sink.Error(
                    ImportDiagnosticCode(location.error()), ref.at, Path().Key(ref.path), location.error().message
                );
                imports_ok = false;
                continue;
            }
            key += "\n" + location->logical;
            tops.emplace_back(std::move(*location), &ref);
        }
        if (!tops.empty()) {
            std::shared_ptr<const Library> library = cache.Find(key, resolver);
            if (library == nullptr) {
                bool cacheable = false;
                library = BuildLibrary(registry, tops, resolver, documents, options, sink, cacheable);
                if (cacheable) {
                    cache.Put(key, library);
                }
                imports_ok = imports_ok && cacheable;
            }
            sink.Append(library->diagnostics);
            registry = library->registry;
        }
        if (DefinesTypes(root)) {
            auto local = std::make_shared<TypeRegistry>(registry);
            for (auto& def : ParseTypeSections(root, ctx)) {
                local->Add(std::move(def), ctx);
            }
            local->Resolve(ctx);
            CheckDefinitions(
                *local, options.mode == Mode::kStrict ? LiteralTyping::kYamlTyped : LiteralTyping::kTextual, ctx
            );
            registry = local;
        }
        return registry;
    }

    TemplateCheck Check(std::string_view text, const TemplateRequest& request) const {
        // The server's boundary: whatever goes wrong inside becomes a finding, never an exception.
        try {
            return CheckUnguarded(text, request);
        } catch (const std::exception& e) {
            ORCH_LOG_ERROR("TOSCA check failed unexpectedly", {{"error", e.what()}, {"template", request.file_name}});
            TemplateCheck failed;
            failed.diagnostics.push_back(Diagnostic{
                Severity::kError,
                DiagnosticCode::kGeneral,
                request.file_name,
                0,
                0,
                "",
                std::string("the template could not be checked: ") + e.what()});
            return failed;
        }
    }

    TemplateCheck CheckUnguarded(std::string_view text, const TemplateRequest& request) const {
        TemplateCheck result;
        DiagSink sink(options.limits.max_diagnostics);
        const yaml::LoadLimits limits{
            options.limits.max_document_bytes,
            options.limits.max_depth,
            options.limits.max_yaml_nodes,
            options.limits.max_alias_expansion};
        const yaml::Document doc = yaml::LoadYaml(text, request.file_name, limits, sink);
        if (doc.root == nullptr) {
            result.diagnostics = sink.Take();
            return result;
        }
        const yaml::Node& root = *doc.root;
        if (!root.IsMapping() || root.entries.empty()) {
            sink.Error(
                DiagnosticCode::kYamlSyntax,
                &root,
                Path(),
                "a TOSCA template must be a mapping of sections (tosca_definitions_version, topology_template, ...)"
            );
            result.diagnostics = sink.Take();
            return result;
        }
        const auto version = CheckVersion(root, sink);
        if (!version) {
            result.diagnostics = sink.Take();
            return result;
        }
        GrammarContext ctx{sink, options.mode == Mode::kStrict, ToscaMinorVersion(*version)};
        CheckKeys(
            root,
            {"tosca_definitions_version",
             "namespace",
             "metadata",
             "description",
             "dsl_definitions",
             "repositories",
             "imports",
             "artifact_types",
             "data_types",
             "capability_types",
             "interface_types",
             "relationship_types",
             "node_types",
             "group_types",
             "policy_types",
             "topology_template",
             "template_name",
             "template_author",
             "template_version"},
            Path(),
            "the template",
            ctx
        );
        bool imports_ok = true;
        const std::shared_ptr<const TypeRegistry> types = Types(root, *version, request, sink, imports_ok);
        yaml::Arena scratch{std::string(kParametersSource)};
        TopologyChecker checker(*types, options, sink, scratch, request.inputs);
        checker.set_imports_incomplete(!imports_ok);
        checker.set_version_minor(ToscaMinorVersion(*version));
        checker.set_accepted_parameters(request.accepted_parameters);
        const std::size_t parameter_bytes =
            request.inputs ? request.inputs->dump(-1, ' ', false, Json::error_handler_t::replace).size() : 0;
        checker.set_copy_budget(limits.AliasBudget(text.size() + parameter_bytes));
        const yaml::Node* topology = root.Find("topology_template");
        if (topology == nullptr && !request.inputs.has_value() &&
            (DefinesTypes(root) || root.Find("imports") != nullptr)) {
            sink.Warning(
                DiagnosticCode::kNoTopology,
                &root,
                Path(),
                "the document has no topology_template: only its types were checked"
            );
        } else {
            checker.Run(topology);
        }
        result.diagnostics = sink.Take();
        if (!HasErrors(result.diagnostics)) {
            result.spec = BuildSpec(checker.topology(), root, root.Find(kVersionKey)->text);
            result.spec->accepted_unknown_parameters = checker.accepted_unknown_parameters();
        }
        return result;
    }
};

TemplateEngine::TemplateEngine(EngineOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
TemplateEngine::~TemplateEngine() = default;

TemplateCheck TemplateEngine::Check(std::string_view text, const TemplateRequest& request) const {
    return impl_->Check(text, request);
}

Result<std::string> TemplateEngine::ReadUrl(std::string_view url) const {
    if (!IsAbsoluteUrl(url)) {
        return Error::InvalidArgument("not an absolute URL: " + std::string(url));
    }
    ORCH_ASSIGN_OR_RETURN(const ImportLocation location, impl_->resolver.Locate(url, nullptr, ""));
    ORCH_ASSIGN_OR_RETURN(ImportText text, impl_->resolver.Read(location));
    return std::move(text.text);
}

TemplateEngine::CacheStats TemplateEngine::Stats() const {
    return CacheStats{impl_->cache.size(), impl_->cache.hits(), impl_->cache.misses()};
}

void TemplateEngine::ClearCache() const {
    impl_->cache.Clear();
    impl_->documents.Clear();
    impl_->resolver.ClearFetched();
}

const EngineOptions& TemplateEngine::options() const {
    return impl_->options;
}

std::string TemplateCheck::ErrorMessage(std::string_view template_name) const {
    return RenderErrorMessage(diagnostics, template_name);
}

TemplateCheck ParseTemplate(std::string_view text, const EngineOptions& options, const TemplateRequest& request) {
    return TemplateEngine(options).Check(text, request);
}

Result<std::vector<MirrorMapping>> ParseMirrorMap(std::string_view text) {
    std::vector<MirrorMapping> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = text.find(';', start);
        const std::string pair =
            Trim(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
        if (!pair.empty()) {
            const std::size_t eq = pair.find('=');
            if (eq == std::string::npos || Trim(pair.substr(0, eq)).empty() || Trim(pair.substr(eq + 1)).empty()) {
                return Error::InvalidArgument(
                    "mirror \"" + pair + "\": expected URL_PREFIX=DIRECTORY (pairs separated by ';')"
                );
            }
            out.push_back({Trim(pair.substr(0, eq)), Trim(pair.substr(eq + 1))});
        }
        if (end == std::string_view::npos) {
            break;
        }
        start = end + 1;
    }
    return out;
}

std::map<std::string, std::string> ToscaConfigAliases() {
    return {
        {"ORCHESTRATOR_TOSCA_MIRRORS", "tosca.mirrors"},
        {"ORCHESTRATOR_TOSCA_ALLOWED_HOSTS", "tosca.allowed_hosts"},
        {"ORCHESTRATOR_TOSCA_MODE", "tosca.mode"},
    };
}

Result<EngineOptions> EngineOptionsFromConfig(const ConfigTree& config) {
    EngineOptions options;
    auto mode = config.GetString("tosca.mode", "compat");
    if (!mode) {
        return std::move(mode).error();
    }
    if (*mode != "compat" && *mode != "strict") {
        return Error::InvalidArgument("config key 'tosca.mode': expected compat or strict, got '" + *mode + "'");
    }
    options.mode = *mode == "strict" ? Mode::kStrict : Mode::kCompat;
    auto unknown = config.GetString("tosca.unknown_parameters", "refuse");
    if (!unknown) {
        return std::move(unknown).error();
    }
    if (*unknown != "refuse" && *unknown != "ignore") {
        return Error::InvalidArgument(
            "config key 'tosca.unknown_parameters': expected refuse or ignore, got '" + *unknown + "'"
        );
    }
    options.unknown_parameters = *unknown == "ignore" ? UnknownParameters::kIgnore : UnknownParameters::kRefuse;
    auto mirrors = config.GetStringMap("tosca.mirrors");
    if (!mirrors) {
        return std::move(mirrors).error();
    }
    for (const auto& [prefix, dir] : *mirrors) {
        options.mirrors.push_back({prefix, dir});
    }
    auto hosts = config.GetStringList("tosca.allowed_hosts");
    if (!hosts) {
        return std::move(hosts).error();
    }
    options.allowed_hosts = std::move(*hosts);
    auto bytes = config.GetBytes("tosca.max_template_bytes", options.limits.max_document_bytes);
    if (!bytes) {
        return std::move(bytes).error();
    }
    options.limits.max_document_bytes = static_cast<std::size_t>(*bytes);
    auto expansion = config.GetInt("tosca.max_alias_expansion", 4, 1, 1024);
    if (!expansion) {
        return std::move(expansion).error();
    }
    options.limits.max_alias_expansion = static_cast<std::size_t>(*expansion);
    auto import_bytes = config.GetBytes("tosca.import_cache_bytes", options.max_cached_import_bytes);
    if (!import_bytes) {
        return std::move(import_bytes).error();
    }
    options.max_cached_import_bytes = *import_bytes;
    auto timeout = config.GetDuration("tosca.fetch_timeout", options.fetch_timeout);
    if (!timeout) {
        return std::move(timeout).error();
    }
    options.fetch_timeout = *timeout;
    auto ttl = config.GetDuration(
        "tosca.fetched_ttl", std::chrono::duration_cast<std::chrono::milliseconds>(options.fetched_ttl)
    );
    if (!ttl) {
        return std::move(ttl).error();
    }
    options.fetched_ttl = std::chrono::duration_cast<std::chrono::seconds>(*ttl);
    return options;
}

}  // namespace orch::tosca
