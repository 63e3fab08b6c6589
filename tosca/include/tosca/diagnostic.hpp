#pragma once

#include "common/error.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orch::tosca {

enum class Severity { kError, kWarning };

/// What a diagnostic is about, for callers that react to some kinds specially (the API renders
/// missing inputs and dependency loops with the original orchestrator's exact texts; tosca-check
/// exits 3 on the two import-availability codes). Every code has a stable name (kCodeNames in
/// diagnostic.cpp) that users write in pipelines (--suppress-warning W-DUPLICATE-KEY).
enum class DiagnosticCode {
    kGeneral,
    kYamlSyntax,         ///< the text is not YAML (or not UTF-8)
    kLimitExceeded,      ///< size, depth, alias expansion or node-count limit
    kDuplicateKey,       ///< a mapping repeats a key (warning; the last value wins)
    kVersion,            ///< tosca_definitions_version missing or unsupported
    kImport,             ///< an import is malformed or its document cannot be parsed
    kImportUnreachable,  ///< an import could not be read or fetched (missing file, network, HTTP status)
    kImportRefused,      ///< an import refused by policy (not mirrored nor allowed, http, a file on the server)
    kUnknownType,        ///< a type name that no definition or import declares
    kUnknownField,       ///< a key the grammar or the type does not declare
    kInvalidValue,       ///< a value of the wrong type or violating a constraint
    kMissingRequired,    ///< a required property or field is not set
    kRequirement,        ///< a requirement that cannot be bound
    kFunction,           ///< an intrinsic function with bad arguments or references
    kMissingInput,       ///< a required input has no value (the original's text)
    kInputValue,         ///< a user-supplied input of the wrong type or out of constraints
    kUnknownParameter,   ///< a user parameter that is no input of the template (tosca.unknown_parameters)
    kDependencyLoop,     ///< requirements form a cycle (the original's text)
    kTypeRedefined,      ///< a type defined again by another document (warning; the later one is used)
    kImportedTopology,   ///< an imported document's topology_template, which is ignored (warning)
    kNoTopology,         ///< a document without topology_template: only its types were checked (warning)
};

/// A stable upper-case name for a code ("DUPLICATE-KEY"): tools print it, users pass it back.
std::string_view DiagnosticCodeName(DiagnosticCode code);

/// The code whose DiagnosticCodeName is `name`, if any.
std::optional<DiagnosticCode> DiagnosticCodeByName(std::string_view name);

/// Every code, in declaration order (for help texts and tests).
const std::vector<DiagnosticCode>& AllDiagnosticCodes();

/// Whether the finding says an import could not be obtained, as opposed to the template being
/// wrong: the check is then incomplete, and retrying or configuring mirrors may help.
inline bool IsImportUnavailable(DiagnosticCode code) {
    return code == DiagnosticCode::kImportUnreachable || code == DiagnosticCode::kImportRefused;
}

/// The `file` of findings about the user's parameters (the create request's, or --inputs).
inline constexpr std::string_view kParametersSource = "parameters";

/// One finding about a template: where (file, 1-based line and column, YAML path) and what.
/// line/column are 0 when the finding has no position (e.g. a missing user input).
struct Diagnostic {
    Severity severity = Severity::kError;
    DiagnosticCode code = DiagnosticCode::kGeneral;
    std::string file;
    int line = 0;
    int column = 0;
    std::string path;  ///< e.g. topology_template.node_templates.gpu_node.capabilities.host.properties.num_gpus
    std::string message;
};

std::string_view SeverityName(Severity severity);  ///< "error" | "warning"

bool HasErrors(const std::vector<Diagnostic>& diagnostics);
std::size_t CountErrors(const std::vector<Diagnostic>& diagnostics);

/// `W-DUPLICATE-KEY` for a warning, `E-UNKNOWN-TYPE` for an error: the code tools show.
std::string DiagnosticLabel(const Diagnostic& diagnostic);

/// `file:line:col: error: path: message` (position and path omitted when unknown), as tosca-check
/// prints; a warning shows its code: `file:line:col: warning[W-DUPLICATE-KEY]: message`.
std::string FormatDiagnostic(const Diagnostic& diagnostic);

/// `line:column: path: message` (no file, no severity): one line of the API error message.
std::string FormatDiagnosticLine(const Diagnostic& diagnostic);

/// The text the API returns with HTTP 400 for a rejected template, compatible with the original:
/// * only missing required inputs: `Input <name> is required and is not present in the user's
///   input list, nor has a default value` (one line per input);
///   and `Parameter '<name>' is not an input of the template; did you mean '<input>'?` for
///   parameters naming no input (the two may mix: both are about the parameters, not the text);
/// * only a dependency loop: `Found node depencency loop in TOSCA topology; involved nodes: [...]`;
/// * otherwise `Error parsing TOSCA template <template_name>:` followed by one
///   `line:column: path: message` line per error (warnings are not included).
std::string RenderErrorMessage(const std::vector<Diagnostic>& diagnostics, std::string_view template_name = "template");

/// The rendered message as an InvalidArgument error (HTTP 400 through HttpStatusFor).
Error ToError(const std::vector<Diagnostic>& diagnostics, std::string_view template_name = "template");

}  // namespace orch::tosca
