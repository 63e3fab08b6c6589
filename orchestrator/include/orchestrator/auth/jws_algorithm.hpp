#pragma once

#include <optional>
#include <string_view>

namespace orch::auth {

/// The JWS algorithms we verify: asymmetric only. `none` and HMAC (HS*) have no value here on
/// purpose, so no configuration or token can ever select them.
enum class JwsAlgorithm { kRs256, kRs384, kRs512, kPs256, kPs384, kPs512, kEs256, kEs384 };

/// Exact, case-sensitive name lookup ("RS256"); nullopt for anything else, including "none"/"HS256".
std::optional<JwsAlgorithm> ParseJwsAlgorithm(std::string_view name);
std::string_view JwsAlgorithmName(JwsAlgorithm alg);

/// True for names that must be refused outright, whatever the configuration says.
bool IsForbiddenJwsAlgorithmName(std::string_view name);

}  // namespace orch::auth
