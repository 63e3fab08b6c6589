#pragma once

#include "common/json.hpp"
#include "test_support/test_env.hpp"
#include "tosca/engine.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace orch::tosca::test {

/// The corpus in shared/ and the mirror that maps the INDIGO types URLs onto it.
inline std::string CorpusDir() {
    return orch::test::SharedDir() + "/tosca-corpus";
}
inline constexpr std::string_view kIndigoTypesPrefix = "https://raw.githubusercontent.com/indigo-dc/tosca-types/";
inline constexpr std::string_view kIndigoMaster =
    "https://raw.githubusercontent.com/indigo-dc/tosca-types/master/custom_types.yaml";

inline EngineOptions CorpusOptions(Mode mode = Mode::kCompat) {
    EngineOptions options;
    options.mode = mode;
    options.mirrors.push_back({std::string(kIndigoTypesPrefix), CorpusDir() + "/indigo-dc-tosca-types/refs/"});
    return options;
}

/// One engine per mode, shared by the tests of a process (as the server shares one).
inline const TemplateEngine& SharedEngine(Mode mode = Mode::kCompat) {
    static const TemplateEngine kCompat(CorpusOptions(Mode::kCompat));
    static const TemplateEngine kStrict(CorpusOptions(Mode::kStrict));
    return mode == Mode::kStrict ? kStrict : kCompat;
}

inline TemplateCheck Check(
    std::string_view text, std::optional<Json> inputs = std::nullopt, Mode mode = Mode::kCompat
) {
    TemplateRequest request;
    request.file_name = "t.yaml";
    request.inputs = std::move(inputs);
    return SharedEngine(mode).Check(text, request);
}

/// The first diagnostic of `severity` whose message contains `text` (and path contains `path`).
inline const Diagnostic* Find(
    const TemplateCheck& check, std::string_view text, std::string_view path = "", Severity severity = Severity::kError
) {
    for (const auto& d : check.diagnostics) {
        if (d.severity == severity && d.message.find(text) != std::string::npos &&
            d.path.find(path) != std::string::npos) {
            return &d;
        }
    }
    return nullptr;
}

/// All diagnostics, one per line, for failure messages.
inline std::string Dump(const TemplateCheck& check) {
    std::string out;
    for (const auto& d : check.diagnostics) {
        out += FormatDiagnostic(d) + "\n";
    }
    return out;
}

/// A 1.0 template with the given inputs and node templates (both indented by 4 spaces).
inline std::string Template(std::string_view nodes, std::string_view inputs = "", std::string_view rest = "") {
    std::string out = "tosca_definitions_version: tosca_simple_yaml_1_0\n";
    out += "imports:\n  - indigo_custom_types: " + std::string(kIndigoMaster) + "\n";
    out += "topology_template:\n";
    if (!inputs.empty()) {
        out += "  inputs:\n" + std::string(inputs);
    }
    out += "  node_templates:\n" + std::string(nodes);
    out += std::string(rest);
    return out;
}

}  // namespace orch::tosca::test
