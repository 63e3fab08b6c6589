#pragma once

#include "common/json.hpp"
#include "common/result.hpp"

#include <string_view>

namespace orch::ops {

/// YAML text to JSON: maps, sequences, and scalars typed the YAML 1.2 core way (quoted scalars
/// stay strings; true/false, null/~, integers and decimals are typed). Depth-bounded.
Result<Json> YamlTextToJson(std::string_view text);

/// docs/openapi.yaml, compiled into the binary at build time and converted once.
const Result<Json>& OpenApiDocument();

}  // namespace orch::ops
