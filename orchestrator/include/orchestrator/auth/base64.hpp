#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace orch::auth {

/// base64url without padding (RFC 7515 §2), as used by JWS and JWK.
std::string Base64UrlEncode(std::string_view bytes);

/// Strict base64url decoding: only the URL-safe alphabet, no padding, no whitespace, and unused
/// trailing bits must be zero, so every byte string has exactly one accepted encoding.
std::optional<std::string> Base64UrlDecode(std::string_view text);

/// Standard base64 with padding (RFC 4648 §4), for HTTP Basic credentials and stored ciphertext.
std::string Base64Encode(std::string_view bytes);
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace orch::auth
