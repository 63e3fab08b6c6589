#include "orchestrator/auth/token_checks.hpp"

#include <catch2/catch.hpp>

using namespace orch;
using namespace orch::auth;
using Clock = std::chrono::system_clock;

namespace {

const Clock::time_point kNow = Clock::time_point(std::chrono::seconds(1'800'000'000));
constexpr std::int64_t kNowS = 1'800'000'000;

std::string HeaderReason(const Json& header) {
    auto info = CheckJwsHeader(header);
    REQUIRE_FALSE(info);
    CHECK(info.error().code == ErrorCode::kUnauthenticated);
    return info.error().message;
}

std::string ClaimsReason(const Json& payload, const ClaimRules& rules = {}) {
    auto status = CheckClaims(payload, rules, kNow);
    REQUIRE_FALSE(status);
    CHECK(status.error().code == ErrorCode::kUnauthenticated);
    return status.error().message;
}

Json Valid() {
    return {{"sub", "u1"}, {"exp", kNowS + 3600}, {"iat", kNowS - 10}};
}

}  // namespace

TEST_CASE("header: alg none and HMAC are refused whatever their spelling") {
    CHECK(HeaderReason({{"alg", "none"}}) == "algorithm 'none' is never accepted");
    CHECK(HeaderReason({{"alg", "NONE"}}) == "algorithm 'NONE' is never accepted");
    CHECK(HeaderReason({{"alg", "HS256"}}) == "algorithm 'HS256' is never accepted");
    CHECK(HeaderReason({{"alg", "hs512"}}) == "algorithm 'hs512' is never accepted");
    CHECK(HeaderReason(Json::object()) == "the JWT header has no algorithm");
    CHECK(HeaderReason({{"alg", 256}}) == "the JWT header has no algorithm");
}

TEST_CASE("header: algorithm names are case-sensitive (cpp-jwt accepts 'rs256')") {
    CHECK(HeaderReason({{"alg", "rs256"}}) == "unsupported signature algorithm");
    CHECK(HeaderReason({{"alg", "ES512"}}) == "unsupported signature algorithm");
    auto info = CheckJwsHeader({{"alg", "RS256"}, {"kid", "rsa1"}});
    REQUIRE(info);
    CHECK(info->alg == JwsAlgorithm::kRs256);
    CHECK(info->kid == std::optional<std::string>("rsa1"));
}

TEST_CASE("header: typ absent, JWT or at+jwt (RFC 9068) is accepted, anything else refused") {
    CHECK(CheckJwsHeader({{"alg", "RS256"}}));
    CHECK(CheckJwsHeader({{"alg", "RS256"}, {"typ", "at+jwt"}}));
    CHECK(CheckJwsHeader({{"alg", "RS256"}, {"typ", "application/at+JWT"}}));
    CHECK(CheckJwsHeader({{"alg", "RS256"}, {"typ", "JWT"}}));
    CHECK(HeaderReason({{"alg", "RS256"}, {"typ", "logout+jwt"}}) == "the token type is not an access token ('typ')");
    CHECK(
        HeaderReason({{"alg", "RS256"}, {"crit", {"exp"}}}) ==
        "the JWT header has critical extensions ('crit') we do not support"
    );
    CHECK(HeaderReason({{"alg", "RS256"}, {"kid", 7}}) == "the key id ('kid') is not a string");
}

TEST_CASE("the issuer's pinned algorithm list is enforced") {
    CHECK(CheckAlgorithmAllowed(JwsAlgorithm::kRs256, {JwsAlgorithm::kRs256}));
    auto status = CheckAlgorithmAllowed(JwsAlgorithm::kEs256, {JwsAlgorithm::kRs256});
    REQUIRE_FALSE(status);
    CHECK(status.error().message == "algorithm ES256 is not allowed for this issuer");
}

TEST_CASE("claims: exp is required and checked with the skew") {
    CHECK(CheckClaims(Valid(), {}, kNow));
    Json no_exp = Valid();
    no_exp.erase("exp");
    CHECK(ClaimsReason(no_exp) == "the token has no expiry ('exp' claim)");
    Json expired = Valid();
    expired["exp"] = kNowS - 61;
    CHECK(ClaimsReason(expired) == "the token has expired");
    expired["exp"] = kNowS - 30;  // within the default 60 s skew
    CHECK(CheckClaims(expired, {}, kNow));
    CHECK(ClaimsReason(expired, {.audiences = {}, .clock_skew = std::chrono::seconds(0)}) == "the token has expired");
    Json text_exp = Valid();
    text_exp["exp"] = "tomorrow";
    CHECK(ClaimsReason(text_exp) == "the 'exp' claim is not a valid date");
}

TEST_CASE("claims: nbf and iat in the future are refused") {
    Json future = Valid();
    future["nbf"] = kNowS + 300;
    CHECK(ClaimsReason(future) == "the token is not valid yet ('nbf' is in the future)");
    future["nbf"] = kNowS + 30;
    CHECK(CheckClaims(future, {}, kNow));
    Json iat = Valid();
    iat["iat"] = kNowS + 3000;
    CHECK(ClaimsReason(iat) == "the token was issued in the future ('iat')");
}

TEST_CASE("claims: subject required, ID tokens refused") {
    Json no_sub = Valid();
    no_sub.erase("sub");
    CHECK(ClaimsReason(no_sub) == "the token has no subject ('sub' claim)");
    Json id_token = Valid();
    id_token["nonce"] = "n";
    CHECK(ClaimsReason(id_token) == "an ID token is not an access token");
}

TEST_CASE("claims: audience as string or array, only when configured") {
    const ClaimRules rules{.audiences = {"https://orchestrator.example/"}, .clock_skew = std::chrono::seconds(60)};
    Json token = Valid();
    CHECK(CheckClaims(token, {}, kNow));  // no audience configured: IAM tokens often have none
    CHECK(ClaimsReason(token, rules) == "the token is not meant for this service (audience)");
    token["aud"] = "https://orchestrator.example/";
    CHECK(CheckClaims(token, rules, kNow));
    token["aud"] = Json::array({"vault", "https://orchestrator.example/"});
    CHECK(CheckClaims(token, rules, kNow));
    token["aud"] = Json::array({"vault"});
    CHECK(ClaimsReason(token, rules) == "the token is not meant for this service (audience)");
}
