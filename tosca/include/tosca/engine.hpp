#pragma once

#include "common/clock.hpp"
#include "common/config.hpp"
#include "common/http_client.hpp"
#include "common/json.hpp"
#include "common/result.hpp"
#include "tosca/deployment_spec.hpp"
#include "tosca/diagnostic.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orch::tosca {

/// kCompat accepts what the original orchestrator accepted (scalars read as text and parsed per
/// TOSCA type, unknown grammar keys and undeclared capabilities as warnings, required node
/// properties not enforced, ...); kStrict follows the TOSCA Simple Profile text. docs/tosca.md
/// lists every difference.
enum class Mode { kCompat, kStrict };

/// Hard bounds on what one template may cost. Exceeding one is an error naming the limit.
struct Limits {
    std::size_t max_document_bytes = 2u << 20;  ///< per document (template or import)
    int max_depth = 64;                         ///< YAML nesting depth
    std::size_t max_yaml_nodes = 200'000;       ///< YAML nodes per document, aliases counted expanded
    /// Alias references together may add at most this many times the document's size (at least
    /// 64 KiB) of text, plus 8 bytes per node, to a document (tosca.max_alias_expansion).
    std::size_t max_alias_expansion = 4;
    std::size_t max_node_templates = 2'000;
    int max_import_depth = 8;           ///< imports of imports of ...
    std::size_t max_imports = 64;       ///< distinct documents imported by one template
    std::size_t max_diagnostics = 500;  ///< further findings are summarised in one line
    int max_function_depth = 32;        ///< nested intrinsic functions / get_property chains
};

/// URL prefix → local directory: imports under the prefix are read from the directory instead.
struct MirrorMapping {
    std::string url_prefix;
    std::string directory;
};

/// Parses `URL_PREFIX=DIR` pairs separated by ';' (the ORCHESTRATOR_TOSCA_MIRRORS format).
Result<std::vector<MirrorMapping>> ParseMirrorMap(std::string_view text);

/// What a parameter that names no input of the template does: kRefuse makes it an error naming
/// the closest input ("did you mean"); kIgnore keeps the original's silence (a warning only).
enum class UnknownParameters { kRefuse, kIgnore };

struct EngineOptions {
    Mode mode = Mode::kCompat;
    UnknownParameters unknown_parameters = UnknownParameters::kRefuse;  ///< tosca.unknown_parameters
    Limits limits;
    std::vector<MirrorMapping> mirrors;
    /// Hosts whose https:// imports may be fetched when no mirror maps them (exact names,
    /// case-insensitive). Every other URL import is refused.
    std::vector<std::string> allowed_hosts;
    http::Client* http_client = nullptr;  ///< null: never fetch (mirrors only)
    /// Ages the fetched-import cache (steady time). The server passes its one clock; null (the
    /// command-line tools) reads a SystemClock. Must outlive the engine.
    const Clock* clock = nullptr;
    std::chrono::milliseconds fetch_timeout{10'000};
    std::chrono::seconds fetched_ttl{600};  ///< how long a fetched import is reused
    std::size_t max_cached_libraries = 64;  ///< compiled import sets kept in memory
    /// Bytes of imported documents kept in memory: parsed documents (estimated from their nodes
    /// and text) and fetched texts each (tosca.import_cache_bytes). Entry counts alone would let
    /// 2 MiB documents from an allow-listed host fill gigabytes.
    std::uint64_t max_cached_import_bytes = 64u << 20;
    /// Whether imports may name local paths (relative to the importing file or absolute).
    /// tosca-check enables it; the server must not (templates come from users).
    bool allow_file_imports = false;
};

/// Environment aliases for the `tosca` configuration keys, to pass to ConfigTree::ApplyEnvironment:
/// ORCHESTRATOR_TOSCA_MIRRORS → tosca.mirrors, ORCHESTRATOR_TOSCA_ALLOWED_HOSTS → tosca.allowed_hosts,
/// ORCHESTRATOR_TOSCA_MODE → tosca.mode.
std::map<std::string, std::string> ToscaConfigAliases();

/// Reads the `tosca` section of the server configuration: tosca.mode (compat|strict),
/// tosca.mirrors (mapping URL_PREFIX → DIR, or the text form above), tosca.allowed_hosts (list),
/// tosca.unknown_parameters (refuse|ignore), tosca.max_template_bytes, tosca.max_alias_expansion,
/// tosca.import_cache_bytes, tosca.fetch_timeout,
/// tosca.fetched_ttl. The HTTP client is left null.
Result<EngineOptions> EngineOptionsFromConfig(const ConfigTree& config);

/// One template to check.
struct TemplateRequest {
    std::string file_name = "template";  ///< names the template in diagnostics
    std::string base_directory;          ///< resolves relative file imports (with allow_file_imports)
    /// The user's `parameters`. nullopt checks the template alone: required inputs without a
    /// default are then fine and get_input of them stays unresolved. With a value, inputs are
    /// checked and get_input evaluated exactly as a create request does.
    std::optional<Json> inputs;
    /// Parameters accepted earlier (an object; only its names matter): never refused as unknown.
    /// The workflow passes a deployment's stored parameters, PUT the ones stored before the
    /// update, so a deployment accepted under `ignore` or before the check still runs and deletes.
    const Json* accepted_parameters = nullptr;
};

/// Every finding, and the DeploymentSpec when there is no error.
struct TemplateCheck {
    std::vector<Diagnostic> diagnostics;
    std::optional<DeploymentSpec> spec;

    bool valid() const { return !HasErrors(diagnostics); }
    /// RenderErrorMessage() of the diagnostics (the API's 400 message).
    std::string ErrorMessage(std::string_view template_name = "template") const;
};

/// The TOSCA engine: parses, validates and extracts templates. Thread-safe: one instance serves
/// concurrent Check() calls; parsed import documents and compiled type libraries are cached
/// (keyed by location, revalidated against file modification times, fetched URLs kept for
/// fetched_ttl), so a typical template costs only its own parse.
class TemplateEngine {
   public:
    explicit TemplateEngine(EngineOptions options);
    ~TemplateEngine();
    TemplateEngine(const TemplateEngine&) = delete;
    TemplateEngine& operator=(const TemplateEngine&) = delete;

    TemplateCheck Check(std::string_view text, const TemplateRequest& request = {}) const;

    struct CacheStats {
        std::size_t libraries = 0;
        std::uint64_t hits = 0;
        std::uint64_t misses = 0;
    };
    CacheStats Stats() const;
    void ClearCache() const;

    /// The text at an absolute URL read exactly as an import would be (the mirror map, else an
    /// allow-listed host over HTTPS, at most max_template_bytes): how interface playbooks reach
    /// native contextualisation without arbitrary egress. kPermissionDenied when the policy
    /// refuses the URL; kNotFound / kUnavailable / kDeadlineExceeded when it cannot be read.
    Result<std::string> ReadUrl(std::string_view url) const;

    const EngineOptions& options() const;

   private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// One-shot convenience (no cache shared between calls).
TemplateCheck ParseTemplate(std::string_view text, const EngineOptions& options, const TemplateRequest& request = {});

}  // namespace orch::tosca
