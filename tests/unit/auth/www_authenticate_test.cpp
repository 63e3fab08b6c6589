#include "orchestrator/auth/authenticator.hpp"
#include "orchestrator/auth/authorization.hpp"
#include "test_support/auth_challenge.hpp"

#include <catch2/catch.hpp>

using namespace orch;
using namespace orch::auth;
using orch::test::ChallengeFor;

TEST_CASE("WWW-Authenticate for a request without a token carries no error code (RFC 6750 §3.1)") {
    auto missing = ExtractBearerToken("", 100);
    REQUIRE_FALSE(missing);
    CHECK(missing.error().details.challenge == AuthChallenge::kTokenMissing);
    CHECK(ChallengeFor(missing.error()) == "Bearer realm=\"oauth\"");
}

TEST_CASE("WWW-Authenticate for an invalid token") {
    CHECK(
        ChallengeFor(Error::Unauthenticated("Invalid token: the token has expired")) ==
        "Bearer realm=\"oauth\", error=\"invalid_token\", error_description=\"Invalid token: the token has expired\""
    );
    // The missing-token text alone does not make the bare challenge: only the typed detail does.
    CHECK(
        ChallengeFor(Error::Unauthenticated(std::string(kFullAuthenticationRequired))).find("invalid_token") !=
        std::string::npos
    );
    // Quotes, backslashes and control characters cannot break out of the quoted string.
    const auto header = ChallengeFor(Error::Unauthenticated("Invalid token: issuer 'a\"b\\c\r\nX: y' is not trusted"));
    CHECK(header.find('\r') == std::string::npos);
    CHECK(header.find('\n') == std::string::npos);
    CHECK(header.find("a'b'c") != std::string::npos);
}

TEST_CASE("WWW-Authenticate for missing scopes comes from the scopes, not the message") {
    auto status = RequireScopes(Principal{}, Access::kWrite, ScopePolicy{});
    REQUIRE_FALSE(status);
    CHECK(status.error().details.challenge == AuthChallenge::kInsufficientScope);
    CHECK(status.error().details.scopes == std::vector<std::string>{"openid", "profile"});
    CHECK(
        ChallengeFor(status.error()) ==
        "Bearer realm=\"oauth\", error=\"insufficient_scope\", error_description=\"Insufficient scope for this "
        "resource\", scope=\"openid profile\""
    );
    // A 403 whose text merely looks like a scope error gets no challenge.
    CHECK(ChallengeFor(Error::PermissionDenied("Insufficient scope for this resource, scope=\"x\"")).empty());
}

TEST_CASE("no WWW-Authenticate for other errors") {
    CHECK(ChallengeFor(Error::PermissionDenied("Only the owner of the deployment can perform this operation")).empty());
    CHECK(ChallengeFor(Error::NotFound("x")).empty());
    CHECK(ChallengeFor(Error::Unavailable("IdP down")).empty());
}

TEST_CASE("bearer extraction: scheme case-insensitive, contract texts for missing and malformed tokens") {
    CHECK(ExtractBearerToken("Bearer abc.def.ghi", 100).value() == "abc.def.ghi");
    CHECK(ExtractBearerToken("bearer abc", 100).value() == "abc");
    CHECK(ExtractBearerToken("  BEARER   abc==  ", 100).value() == "abc==");
    const auto message = [](std::string_view header, std::size_t max = 100) {
        auto token = ExtractBearerToken(header, max);
        REQUIRE_FALSE(token);
        CHECK(token.error().code == ErrorCode::kUnauthenticated);
        return token.error().message;
    };
    CHECK(message("") == kFullAuthenticationRequired);
    CHECK(message("Basic b3JjaDpzZWNyZXQ=") == kFullAuthenticationRequired);
    CHECK(message("Bearerabc") == kFullAuthenticationRequired);
    CHECK(message("Bearer") == "Invalid token: the Authorization header has no token after 'Bearer'");
    CHECK(message("Bearer   ") == "Invalid token: the Authorization header has no token after 'Bearer'");
    CHECK(message("Bearer abc def") == "Invalid token: malformed Authorization header");
    CHECK(message("Bearer a\"b") == "Invalid token: malformed Authorization header");
    CHECK(message("Bearer ===") == "Invalid token: malformed Authorization header");
    CHECK(message("Bearer " + std::string(101, 'a')) == "Invalid token: the token is larger than 100 bytes");
}

TEST_CASE("auth disabled: every request is the local user") {
    auto authenticator = MakeDisabledAuthenticator();
    auto principal = authenticator->Authenticate("");
    REQUIRE(principal);
    CHECK(principal->issuer == "local");
    CHECK(principal->subject == "local-user");
    CHECK(principal->admin);
    CHECK(principal->local);
    CHECK(principal->HasScope("offline_access"));
    CHECK(authenticator->Authenticate("Bearer whatever")->subject == "local-user");
}
