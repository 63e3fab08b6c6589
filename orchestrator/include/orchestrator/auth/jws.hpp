#pragma once

#include "common/json.hpp"
#include "common/result.hpp"
#include "orchestrator/auth/jws_algorithm.hpp"
#include "orchestrator/auth/public_key.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace orch::auth {

/// A JWS in compact serialization, split and decoded but NOT verified.
struct CompactJws {
    Json header;
    Json payload;
    std::string_view signing_input;  ///< "<header>.<payload>" as sent (a view into the token)
    std::string signature;           ///< decoded signature bytes
};

struct JwsLimits {
    std::size_t max_token_bytes = 8192;
    int max_json_depth = 16;
};

/// Splits and decodes a compact JWS: exactly three dot-separated base64url parts, a JSON object
/// header and payload. Errors are kInvalidArgument with a reason that never contains the token.
Result<CompactJws> ParseCompactJws(std::string_view token, const JwsLimits& limits);

/// Verifies `signature` over `signing_input` with `key` under `alg` (EVP_DigestVerify; PS* with
/// MGF1 and salt = digest length; ES* with the JWS raw R||S form converted to DER). Fails when the
/// key is not bound to that algorithm. Thread-safe.
Status VerifyJwsSignature(
    JwsAlgorithm alg, const PublicKey& key, std::string_view signing_input, std::string_view signature
);

}  // namespace orch::auth
