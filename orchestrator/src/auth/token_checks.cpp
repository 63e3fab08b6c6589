#include "orchestrator/auth/token_checks.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace orch::auth {
namespace {

Error Reject(const std::string& why) {
    return Error::Unauthenticated(why);
}

std::string Lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

// NumericDate (RFC 7519 §2): a JSON number of seconds; fractions allowed, absurd values rejected.
Result<std::optional<double>> NumericDate(const Json& payload, const char* name) {
    const auto it = payload.find(name);
    if (it == payload.end()) {
        return std::optional<double>();
    }
    if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0 || it->get<double>() > 1e11) {
        return Reject(std::string("the '") + name + "' claim is not a valid date");
    }
    return std::optional<double>(it->get<double>());
}

Status CheckTimes(const Json& payload, std::chrono::seconds skew, std::chrono::system_clock::time_point now) {
    const double now_s = std::chrono::duration<double>(now.time_since_epoch()).count();
    const double slack = static_cast<double>(skew.count());
    auto exp = NumericDate(payload, "exp");
    auto nbf = NumericDate(payload, "nbf");
    auto iat = NumericDate(payload, "iat");
    if (!exp || !nbf || !iat) {
        return !exp ? std::move(exp).error() : !nbf ? std::move(nbf).error() : std::move(iat).error();
    }
    if (!exp->has_value()) {
        return Reject("the token has no expiry ('exp' claim)");
    }
    if (**exp + slack <= now_s) {
        return Reject("the token has expired");
    }
    if (nbf->has_value() && **nbf - slack > now_s) {
        return Reject("the token is not valid yet ('nbf' is in the future)");
    }
    if (iat->has_value() && **iat - slack > now_s) {
        return Reject("the token was issued in the future ('iat')");
    }
    return Ok();
}

Status CheckAudience(const Json& payload, const std::vector<std::string>& accepted) {
    if (accepted.empty()) {
        return Ok();
    }
    const auto it = payload.find("aud");
    auto matches = [&](const Json& value) {
        return value.is_string() &&
               std::find(accepted.begin(), accepted.end(), value.get_ref<const std::string&>()) != accepted.end();
    };
    if (it != payload.end() && it->is_string() && matches(*it)) {
        return Ok();
    }
    if (it != payload.end() && it->is_array() && std::any_of(it->begin(), it->end(), matches)) {
        return Ok();
    }
    return Reject("the token is not meant for this service (audience)");
}

}  // namespace

Result<JwsHeaderInfo> CheckJwsHeader(const Json& header) {
    const auto alg_it = header.find("alg");
    if (alg_it == header.end() || !alg_it->is_string()) {
        return Reject("the JWT header has no algorithm");
    }
    const auto& alg_name = alg_it->get_ref<const std::string&>();
    if (IsForbiddenJwsAlgorithmName(alg_name)) {
        return Reject("algorithm '" + std::string(alg_name.substr(0, 16)) + "' is never accepted");
    }
    const auto alg = ParseJwsAlgorithm(alg_name);
    if (!alg) {
        return Reject("unsupported signature algorithm");
    }
    if (const auto typ = header.find("typ"); typ != header.end()) {
        const std::string value = typ->is_string() ? Lower(typ->get<std::string>()) : std::string("?");
        if (value != "jwt" && value != "at+jwt" && value != "application/at+jwt") {
            return Reject("the token type is not an access token ('typ')");
        }
    }
    if (header.contains("crit")) {
        return Reject("the JWT header has critical extensions ('crit') we do not support");
    }
    JwsHeaderInfo info{*alg, std::nullopt};
    if (const auto kid = header.find("kid"); kid != header.end()) {
        if (!kid->is_string()) {
            return Reject("the key id ('kid') is not a string");
        }
        info.kid = kid->get<std::string>();
    }
    return info;
}

Status CheckAlgorithmAllowed(JwsAlgorithm alg, const std::vector<JwsAlgorithm>& allowed) {
    if (std::find(allowed.begin(), allowed.end(), alg) == allowed.end()) {
        return Reject("algorithm " + std::string(JwsAlgorithmName(alg)) + " is not allowed for this issuer");
    }
    return Ok();
}

Status CheckClaims(const Json& payload, const ClaimRules& rules, std::chrono::system_clock::time_point now) {
    const auto sub = payload.find("sub");
    if (sub == payload.end() || !sub->is_string() || sub->get_ref<const std::string&>().empty()) {
        return Reject("the token has no subject ('sub' claim)");
    }
    ORCH_RETURN_IF_ERROR(CheckTimes(payload, rules.clock_skew, now));
    ORCH_RETURN_IF_ERROR(CheckAudience(payload, rules.audiences));
    if (payload.contains("nonce") || payload.contains("at_hash")) {
        return Reject("an ID token is not an access token");
    }
    return Ok();
}

}  // namespace orch::auth
