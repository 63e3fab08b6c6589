#pragma once

#include "common/json.hpp"
#include "common/result.hpp"
#include "orchestrator/auth/jws_algorithm.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace orch::auth {

/// What the JOSE header allows us to do, once it passed CheckJwsHeader.
struct JwsHeaderInfo {
    JwsAlgorithm alg;
    std::optional<std::string> kid;
};

/// Header rules (RFC 8725): `alg` is a known asymmetric algorithm (exact case; `none` and HS* are
/// refused whatever the configuration), `typ` is absent, "JWT", "at+jwt" or "application/at+jwt",
/// and no `crit` extension is present. `jku`/`x5u`/`jwk` are never followed (ignored).
/// Errors are kUnauthenticated with a reason for the "Invalid token: ..." message.
Result<JwsHeaderInfo> CheckJwsHeader(const Json& header);

/// The issuer's pinned algorithm list.
Status CheckAlgorithmAllowed(JwsAlgorithm alg, const std::vector<JwsAlgorithm>& allowed);

struct ClaimRules {
    std::vector<std::string> audiences;  ///< empty: no audience check
    std::chrono::seconds clock_skew{60};
};

/// Payload rules: `sub` non-empty; `exp` required and not passed; `nbf` and `iat` not in the
/// future (all with the skew); `aud` (string or array) names an accepted audience when configured;
/// ID tokens (`nonce`/`at_hash`) are not access tokens. `iss` is checked by the caller.
Status CheckClaims(const Json& payload, const ClaimRules& rules, std::chrono::system_clock::time_point now);

}  // namespace orch::auth
