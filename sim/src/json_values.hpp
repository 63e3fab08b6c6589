// Helpers of the JSON-schema validator about JSON values and pointers: type names, UTF-8
// lengths, RFC 6901 pointers, short renderings for messages.
#pragma once

#include <common/json.hpp>

#include <cstddef>
#include <string>

namespace orch::sim::schema_detail {

std::size_t Utf8Length(const std::string& text);
std::string EscapePointerToken(const std::string& token);
std::string UnescapePointerToken(const std::string& token);
const Json* FollowPointer(const Json& root, const std::string& pointer);
std::string TypeName(const Json& value);
bool IsIntegral(const Json& value);
bool TypeMatches(const std::string& type, const Json& value);
std::string Abbreviate(const Json& value);

}  // namespace orch::sim::schema_detail
