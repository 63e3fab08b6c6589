#pragma once

#include "util/diag_sink.hpp"
#include "yaml/load_limits.hpp"
#include "yaml/node.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace orch::tosca::yaml {

/// Loads one YAML document into nodes with positions. Never throws: syntax errors, non-UTF-8
/// text, a second document, complex keys and exceeded limits become errors in `sink`; duplicate
/// keys become warnings naming both places (the last value is kept, as SnakeYAML and PyYAML do).
/// Limits are enforced while parsing, so neither deep nesting nor alias bombs ("billion laughs")
/// can exhaust the stack or memory. The root is null when the document could not be loaded.
///
/// The text is read by the fast loader (yaml/fast_loader.hpp) when it supports every construct
/// in it, otherwise by yaml-cpp; both build the same nodes and report the same findings.
Document LoadYaml(std::string_view text, std::string source_name, const LoadLimits& limits, DiagSink& sink);

/// Which parser reads the text: kAuto is LoadYaml; the others exist for the differential tests.
enum class YamlParser { kAuto, kFastOnly, kYamlCpp };

/// LoadYaml with a chosen parser. With kFastOnly: nullopt, and nothing added to `sink`, when the
/// fast loader declines the text (or the size or UTF-8 check refuses it).
std::optional<Document> LoadYamlWith(
    YamlParser parser, std::string_view text, std::string source_name, const LoadLimits& limits, DiagSink& sink
);

/// The byte offset of the first invalid UTF-8 sequence, or npos when `text` is valid UTF-8.
std::size_t FindInvalidUtf8(std::string_view text);

}  // namespace orch::tosca::yaml
