#pragma once

#include <string>
#include <string_view>

namespace orch::auth {

/// SHA-256 of a token (32 raw bytes): the key of per-token caches, so no cache holds a token.
std::string TokenDigest(std::string_view token);

/// The first 12 hex digits of the token's SHA-256: identifies a token in logs without revealing it.
std::string TokenLogId(std::string_view token);

}  // namespace orch::auth
