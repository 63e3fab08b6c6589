#pragma once

#include "common/result.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace orch {

using Json = nlohmann::json;

/// Parses JSON text with a nesting limit; the error says where the text is broken.
Result<Json> ParseJson(std::string_view text, int max_depth = 64);

/// Lenient readers matching the original's Jackson coercions: booleans accept "true"/"True"/"false"
/// and numbers (0 = false); integers accept numeric strings. An absent or null member yields nullopt;
/// a present member of the wrong kind is an error naming `field`.
Result<std::optional<bool>> ReadLenientBool(const Json& object, std::string_view field);
Result<std::optional<std::int64_t>> ReadLenientInt(const Json& object, std::string_view field);
Result<std::optional<std::string>> ReadString(const Json& object, std::string_view field);

}  // namespace orch
