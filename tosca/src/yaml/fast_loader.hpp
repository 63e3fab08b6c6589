#pragma once

#include "util/diag_sink.hpp"
#include "yaml/load_limits.hpp"
#include "yaml/node.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace orch::tosca::yaml {

/// Loads `text` with the hand-written reader of the block-style YAML subset templates use, when
/// the text stays inside that subset: the nodes, marks, duplicate-key warnings and limits are
/// those the yaml-cpp path gives (tests/unit/tosca/yaml_differential_test.cpp holds it to that).
/// nullopt, with nothing added to `sink`, for anything else (tags, complex keys, several
/// documents, tabs between tokens, multi-line quoted scalars, syntax errors, exceeded limits...):
/// the caller then loads the text with yaml-cpp. The size and UTF-8 checks are the caller's.
std::optional<Document> FastLoadYaml(
    std::string_view text, const std::string& source_name, const LoadLimits& limits, DiagSink& sink
);

}  // namespace orch::tosca::yaml
