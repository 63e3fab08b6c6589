#pragma once

#include "util/diag_sink.hpp"
#include "yaml/node.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace orch::tosca::yaml {

struct LoadLimits {
    std::size_t max_bytes = 2u << 20;
    int max_depth = 64;
    std::size_t max_nodes = 200'000;  ///< aliases count as the size of what they expand to
};

/// Loads one YAML document into nodes with positions. Never throws: syntax errors, non-UTF-8
/// text, a second document, complex keys and exceeded limits become errors in `sink`; duplicate
/// keys become warnings naming both places (the last value is kept, as SnakeYAML and PyYAML do).
/// Limits are enforced while parsing, so neither deep nesting nor alias bombs ("billion laughs")
/// can exhaust the stack or memory. The root is null when the document could not be loaded.
Document LoadYaml(std::string_view text, std::string source_name, const LoadLimits& limits, DiagSink& sink);

/// The byte offset of the first invalid UTF-8 sequence, or npos when `text` is valid UTF-8.
std::size_t FindInvalidUtf8(std::string_view text);

}  // namespace orch::tosca::yaml
