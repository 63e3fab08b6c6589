#pragma once

#include "common/json.hpp"
#include "common/result.hpp"

#include <string>

namespace orch::cmdb {

/// Reads YAML (or JSON, which YAML includes) into JSON values. Plain scalars follow the YAML core
/// schema (null, true/false, integers, floats); quoted scalars stay strings. `origin` names the
/// file in errors, with line and column.
Result<Json> YamlToJson(const std::string& text, const std::string& origin);

/// Reads a whole file; the error names the path.
Result<std::string> ReadTextFile(const std::string& path, std::size_t max_bytes);

}  // namespace orch::cmdb
