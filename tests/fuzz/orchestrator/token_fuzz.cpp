// libFuzzer target for the token parsers: the Authorization header value (bearer extraction),
// the compact JWS split/decode, the header and claim checks, and the JWKS parser. Built and run
// by tests/fuzz/run-fuzz (clang, -fsanitize=fuzzer,address,undefined).
#include "orchestrator/auth/authenticator.hpp"
#include "orchestrator/auth/jws.hpp"
#include "orchestrator/auth/public_key.hpp"
#include "orchestrator/auth/token_checks.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const std::string header = "Bearer " + std::string(text);
    for (const std::string_view value : {std::string_view(header), text}) {
        const auto token = orch::auth::ExtractBearerToken(value, 8192);
        if (!token) {
            continue;
        }
        const auto jws = orch::auth::ParseCompactJws(*token, orch::auth::JwsLimits{});
        if (!jws) {
            continue;
        }
        (void)orch::auth::CheckJwsHeader(jws->header);
        orch::auth::ClaimRules rules;
        (void)orch::auth::CheckClaims(jws->payload, rules, std::chrono::system_clock::now());
    }
    (void)orch::auth::ParseJwks(text);
    return 0;
}
