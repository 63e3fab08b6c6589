// Token verification against real OpenID providers (npm oidc-provider shaped like INDIGO IAM) on
// loopback: the issue's whole rejection list, several issuers, and the contract §5 rules applied
// to principals built from real tokens.
#include "../../unit/auth/test_jwt.hpp"
#include "oidc_provider.hpp"
#include "orchestrator/auth/auth_setup.hpp"
#include "orchestrator/auth/authorization.hpp"
#include "orchestrator/auth/base64.hpp"
#include "test_support/auth_challenge.hpp"

#include <catch2/catch.hpp>
#include <openssl/bio.h>
#include <openssl/pem.h>

#include <thread>

using namespace orch;
using namespace orch::auth;
using orch::test::ChallengeFor;
using orch::test::EpochSeconds;
using orch::test::OidcProvider;

namespace {

// A real server-side setup (config parsed from YAML, real HTTP client) trusting `names`.
struct Verifier {
    std::unique_ptr<http::Client> real;
    std::unique_ptr<test::CountingClient> http;
    InMemoryRefreshTokenStore store;
    SystemClock clock;
    AuthServices services;

    explicit Verifier(
        const std::vector<std::string>& names = {"alpha", "beta", "gamma"},
        const std::string& issuer_extra = "",
        const std::string& extra = ""
    ) {
        auto client = http::MakeClient({});
        REQUIRE(client);
        real = std::move(*client);
        http = std::make_unique<test::CountingClient>(*real);
        auto tree = ConfigTree::FromYaml(test::AuthYaml(names, issuer_extra, extra), "it.yaml");
        REQUIRE(tree);
        auto setup = SetUpAuth(*tree, *http, store, clock);
        REQUIRE(setup);
        services = std::move(*setup);
    }

    Result<Principal> Auth(const std::string& token) { return services.authenticator->Authenticate("Bearer " + token); }
};

std::string Rejected(Result<Principal> result) {
    REQUIRE_FALSE(result);
    CHECK(result.error().code == ErrorCode::kUnauthenticated);
    CHECK(HttpStatusFor(result.error().code) == 401);
    return result.error().message;
}

OidcProvider& Alpha() {
    return OidcProvider::Shared("alpha");
}
OidcProvider& Beta() {
    return OidcProvider::Shared("beta");
}
OidcProvider& Gamma() {
    return OidcProvider::Shared("gamma");
}

Json Claims(const std::string& iss, const std::string& sub, std::int64_t exp_offset = 600) {
    return {
        {"iss", iss},
        {"sub", sub},
        {"iat", EpochSeconds()},
        {"exp", EpochSeconds(exp_offset)},
        {"jti", "t-1"},
        {"scope", "openid profile offline_access"},
        {"groups", {"users"}},
        {"client_id", "dashboard"}};
}

std::string SubjectOf(OidcProvider& provider, const std::string& user) {
    return provider.Users().at(user).at("sub").get<std::string>();
}

// The issuer's published RSA key as PEM: what an HS/RS confusion attacker would use as HMAC secret.
std::string PublishedRsaPem(OidcProvider& provider) {
    const Json jwks = provider.Jwks();
    for (const auto& jwk : jwks.at("keys")) {
        if (jwk.at("kty") == "RSA") {
            auto key = ParseJwk(jwk);
            REQUIRE(key);
            BIO* bio = BIO_new(BIO_s_mem());
            PEM_write_bio_PUBKEY(bio, key->native());
            char* data = nullptr;
            const long len = BIO_get_mem_data(bio, &data);
            std::string pem(data, static_cast<std::size_t>(len));
            BIO_free(bio);
            return pem;
        }
    }
    FAIL("no RSA key published");
    return {};
}

}  // namespace

TEST_CASE("valid tokens from three issuers, each with its own way of telling scopes and groups") {
    Verifier verifier;
    // alpha: scope and groups in the token, like IAM with INCLUDE_SCOPE/AUTHN_INFO.
    auto alice = verifier.Auth(Alpha().UserToken("alice").access_token);
    REQUIRE(alice);
    CHECK(alice->issuer == Alpha().issuer());
    CHECK(alice->subject == SubjectOf(Alpha(), "alice"));
    CHECK(alice->preferred_username == "alice");
    CHECK(alice->admin);
    CHECK(alice->HasScope("offline_access"));
    CHECK(verifier.http->Count("/introspect") == 0);

    // beta: IAM's default profile, neither scope nor groups: introspection tells both.
    auto bob = verifier.Auth(Beta().UserToken("bob").access_token);
    REQUIRE(bob);
    CHECK(bob->issuer == Beta().issuer());
    CHECK(bob->subject == SubjectOf(Beta(), "bob"));
    CHECK(bob->HasScope("openid"));
    CHECK(bob->HasScope("offline_access"));
    CHECK(bob->groups == std::vector<std::string>{"users", "physics", "physics/higgs"});
    CHECK_FALSE(bob->admin);
    CHECK(verifier.http->Count("/introspect") == 1);

    // gamma: WLCG profile, groups as /paths.
    auto wlcg = verifier.Auth(Gamma().UserToken("bob").access_token);
    REQUIRE(wlcg);
    CHECK(wlcg->groups == std::vector<std::string>{"users", "physics", "physics/higgs"});
    CHECK(wlcg->wlcg_groups == std::vector<std::string>{"/users", "/physics", "/physics/higgs"});

    // Same user name, different issuers: different identities.
    CHECK(SubjectOf(Alpha(), "bob") != SubjectOf(Beta(), "bob"));
    // ES256 tokens of the same issuer.
    auto es = verifier.Auth(Alpha().UserToken("bob", "openid profile", "dashboard", "&alg=ES256").access_token);
    REQUIRE(es);
    CHECK(es->subject == SubjectOf(Alpha(), "bob"));
}

TEST_CASE("groups from userinfo when neither the token nor introspection has them") {
    // beta's tokens carry neither scope nor groups. Without the profile scope its introspection
    // answer has no groups either, so userinfo is asked (the token has openid).
    Verifier verifier({"beta"});
    const auto tokens = Beta().UserToken("carol", "openid offline_access");
    auto carol = verifier.Auth(tokens.access_token);
    REQUIRE(carol);
    CHECK(carol->HasScope("openid"));
    CHECK_FALSE(carol->HasScope("profile"));
    CHECK_FALSE(carol->groups.has_value());
    CHECK(verifier.http->Count("/userinfo") == 1);  // asked, and carol has no groups
}

TEST_CASE("each user sees only what the contract allows") {
    Verifier verifier;
    const Principal alice = *verifier.Auth(Alpha().UserToken("alice").access_token);  // alpha admin
    const Principal bob = *verifier.Auth(Alpha().UserToken("bob").access_token);
    const Principal carol = *verifier.Auth(Alpha().UserToken("carol").access_token);  // no groups
    const Principal beta_bob = *verifier.Auth(Beta().UserToken("bob").access_token);
    const bool admins_operate = verifier.services.config.admins_operate_on_any;
    const Owner bobs{bob.issuer, bob.subject};

    CHECK(IsVisibleTo(bob, bobs));
    CHECK(IsVisibleTo(carol, bobs));           // same issuer: readable
    CHECK_FALSE(IsVisibleTo(beta_bob, bobs));  // other issuer: 404
    CHECK(CheckOwnership(bob, bobs, admins_operate));
    CHECK_FALSE(admins_operate);  // the default is v4.0.1's: owners only
    CHECK_FALSE(CheckOwnership(alice, bobs, admins_operate));
    CHECK(CheckOwnership(alice, bobs, true));  // admin of alpha, with admins_operate_on_any
    CHECK_FALSE(CheckOwnership(carol, bobs, true));
    auto carol_delete = CheckOwnership(carol, bobs, admins_operate);
    REQUIRE_FALSE(carol_delete);
    CHECK(carol_delete.error().message == "Only the owner of the deployment can perform this operation");

    auto all = ResolveListFilter(alice, "", std::nullopt, ListKind::kDeployments);
    REQUIRE(all);
    CHECK_FALSE(all->owner.subject());
    CHECK(all->owner.issuer() == std::optional<std::string>(Alpha().issuer()));
    auto own = ResolveListFilter(bob, "", std::nullopt, ListKind::kDeployments);
    REQUIRE(own);
    CHECK(own->owner.subject() == std::optional<std::string>(bob.subject));
    auto foreign = ResolveListFilter(bob, alice.subject + "@" + alice.issuer, std::nullopt, ListKind::kDeployments);
    REQUIRE_FALSE(foreign);
    CHECK(foreign.error().message == "Only admin can retrieve deployments for " + alice.subject + "@" + alice.issuer);

    // userGroup against the user's groups (§5.4), from token claims or introspection.
    CHECK(CheckUserGroup(bob, std::string("physics")));
    CHECK(CheckUserGroup(beta_bob, std::string("physics/higgs")));
    auto chemistry = CheckUserGroup(bob, std::string("chemistry"));
    REQUIRE_FALSE(chemistry);
    CHECK(chemistry.error().message == "The group chemistry is not in the user's authorized groups");
    auto no_groups = CheckUserGroup(carol, std::string("users"));
    REQUIRE_FALSE(no_groups);
    CHECK(no_groups.error().message == "User's token does not contain a group claim or it is empty");
}

TEST_CASE("missing scopes for writes: 403 insufficient_scope with the WWW-Authenticate hint") {
    Verifier verifier;
    auto reader = verifier.Auth(Alpha().UserToken("bob", "openid profile").access_token);
    REQUIRE(reader);
    CHECK(RequireScopes(*reader, Access::kRead, verifier.services.config.scopes));
    auto write = RequireScopes(*reader, Access::kWrite, verifier.services.config.scopes);
    REQUIRE_FALSE(write);
    CHECK(HttpStatusFor(write.error().code) == 403);
    CHECK(
        write.error().message == "Insufficient scope for this resource, scope=\"offline_access fts:submit-transfer\""
    );
    CHECK(
        ChallengeFor(write.error()) ==
        "Bearer realm=\"oauth\", error=\"insufficient_scope\", error_description=\"Insufficient scope for this "
        "resource\", scope=\"offline_access fts:submit-transfer\""
    );
    auto action = RequireScopes(
        *verifier.Auth(Alpha().UserToken("bob", "openid profile fts:submit-transfer").access_token),
        Access::kAction,
        verifier.services.config.scopes
    );
    REQUIRE_FALSE(action);
    CHECK(action.error().message == "Insufficient scope for this resource, scope=\"offline_access\"");
}

TEST_CASE("rejected: expired and not-yet-valid tokens") {
    Verifier verifier;
    const std::string bob = SubjectOf(Alpha(), "bob");
    const std::string expired = Alpha().Sign(Claims(Alpha().issuer(), bob, -120));
    const std::string message = Rejected(verifier.Auth(expired));
    CHECK(message == "Invalid token: the token has expired");
    CHECK(
        ChallengeFor(Error::Unauthenticated(message)) ==
        "Bearer realm=\"oauth\", error=\"invalid_token\", error_description=\"Invalid token: the token has expired\""
    );
    Json future = Claims(Alpha().issuer(), bob);
    future["nbf"] = EpochSeconds(600);
    CHECK(
        Rejected(verifier.Auth(Alpha().Sign(future))) ==
        "Invalid token: the token is not valid yet ('nbf' is in the future)"
    );
    Json no_exp = Claims(Alpha().issuer(), bob);
    no_exp.erase("exp");
    CHECK(Rejected(verifier.Auth(Alpha().Sign(no_exp))) == "Invalid token: the token has no expiry ('exp' claim)");
}

TEST_CASE("rejected: wrong and unknown issuers, without contacting them") {
    Verifier verifier({"alpha", "beta"});
    // Wrong issuer: alpha's own key, but `iss` is not exactly a configured issuer (no trailing slash).
    std::string almost = Alpha().issuer();
    almost.pop_back();
    CHECK(
        Rejected(verifier.Auth(Alpha().Sign(Claims(almost, "x")))) ==
        "Invalid token: issuer '" + almost + "' is not trusted"
    );
    // Unknown issuer: a real, working provider that this deployment does not trust.
    CHECK(
        Rejected(verifier.Auth(Gamma().UserToken("alice").access_token)) ==
        "Invalid token: issuer '" + Gamma().issuer() + "' is not trusted"
    );
    CHECK(verifier.http->Count("") == 0);  // no request left the process
}

TEST_CASE("rejected: issuer A's claims signed with issuer B's key") {
    Verifier verifier;
    REQUIRE(verifier.Auth(Alpha().UserToken("bob").access_token));  // alpha's keys are loaded
    // Beta signs claims that say iss=alpha. Both providers call their first key "rsa1": the kid
    // matches a key of alpha's set, yet only alpha's own key counts, so the signature fails.
    const std::string forged = Beta().Sign(Claims(Alpha().issuer(), SubjectOf(Alpha(), "alice")));
    CHECK(test::UnverifiedPayload(forged).at("iss") == Alpha().issuer());
    CHECK(Rejected(verifier.Auth(forged)) == "Invalid token: the signature does not verify");
    // The same with beta's EC key (a kid alpha also publishes, of another key).
    CHECK(
        Rejected(verifier.Auth(Beta().Sign(Claims(Alpha().issuer(), "x"), Json::object(), "ec"))) ==
        "Invalid token: the signature does not verify"
    );
}

TEST_CASE("rejected: alg none and HS256 keyed with the issuer's RSA public key") {
    Verifier verifier;
    const Json claims = Claims(Alpha().issuer(), SubjectOf(Alpha(), "alice"));
    CHECK(Rejected(verifier.Auth(test::UnsignedJwt(claims))) == "Invalid token: algorithm 'none' is never accepted");
    const std::string pem = PublishedRsaPem(Alpha());
    const std::string hs256 = test::SignHs256(pem, {{"alg", "HS256"}, {"kid", "rsa1"}, {"typ", "at+jwt"}}, claims);
    CHECK(Rejected(verifier.Auth(hs256)) == "Invalid token: algorithm 'HS256' is never accepted");
    CHECK(verifier.http->Count("") == 0);
}

TEST_CASE("rejected: tampered payload") {
    Verifier verifier;
    const std::string token = Alpha().UserToken("bob").access_token;
    REQUIRE(verifier.Auth(token));
    Json claims = test::UnverifiedPayload(token);
    claims["groups"].push_back("orchestrator-admins");
    const auto first = token.find('.');
    const auto second = token.find('.', first + 1);
    const std::string tampered = token.substr(0, first + 1) + Base64UrlEncode(claims.dump()) + token.substr(second);
    CHECK(Rejected(verifier.Auth(tampered)) == "Invalid token: the signature does not verify");
}

TEST_CASE("rejected: unknown kid, after exactly one refresh (then rate-limited)") {
    Verifier verifier({"alpha"}, "", "  jwks_min_refresh_interval: 1s\n");
    REQUIRE(verifier.Auth(Alpha().UserToken("bob").access_token));
    CHECK(verifier.http->Count("/jwk") == 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    const Json claims = Claims(Alpha().issuer(), SubjectOf(Alpha(), "bob"));
    CHECK(
        Rejected(verifier.Auth(Alpha().Sign(claims, {{"kid", "never-published-1"}}))) ==
        "Invalid token: no signing key with this key id ('kid') is published by the issuer"
    );
    CHECK(verifier.http->Count("/jwk") == 2);  // one refresh for the unknown kid
    for (int i = 2; i < 10; ++i) {
        CHECK_FALSE(verifier.Auth(Alpha().Sign(claims, {{"kid", "never-published-" + std::to_string(i)}})));
    }
    CHECK(verifier.http->Count("/jwk") == 2);  // a flood of made-up kids does not reach the issuer
}

TEST_CASE("rejected: wrong audience when an audience is configured") {
    Verifier verifier({"alpha"}, "      audiences: [https://orchestrator.test/]\n");
    CHECK(verifier.Auth(Alpha().UserToken("bob").access_token));
    const auto other =
        Alpha().UserToken("bob", "openid profile", "dashboard", "&resource=https%3A%2F%2Fother-service.test%2F");
    CHECK(other.claims.at("aud") == "https://other-service.test/");
    CHECK(
        Rejected(verifier.Auth(other.access_token)) ==
        "Invalid token: the token is not meant for this service (audience)"
    );
}

TEST_CASE("rejected: oversized tokens and malformed headers") {
    Verifier verifier;
    Json big = Claims(Alpha().issuer(), SubjectOf(Alpha(), "bob"));
    big["padding"] = std::string(9000, 'x');
    CHECK(Rejected(verifier.Auth(Alpha().Sign(big))) == "Invalid token: the token is larger than 8192 bytes");
    auto& authenticator = *verifier.services.authenticator;
    const auto message = [&](const std::string& header) {
        auto result = authenticator.Authenticate(header);
        REQUIRE_FALSE(result);
        CHECK(result.error().code == ErrorCode::kUnauthenticated);
        return result.error().message;
    };
    CHECK(message("") == "Full authentication is required to access this resource");
    CHECK(ChallengeFor(authenticator.Authenticate("").error()) == "Bearer realm=\"oauth\"");
    CHECK(message("Basic b3JjaGVzdHJhdG9yOnNlY3JldA==") == "Full authentication is required to access this resource");
    CHECK(message("Bearer") == "Invalid token: the Authorization header has no token after 'Bearer'");
    CHECK(message("Bearer two tokens") == "Invalid token: malformed Authorization header");
    CHECK(message("Bearer not-a-jwt") == "Invalid token: not a signed JWT");
    CHECK(message("Bearer e30.e30.e30.") == "Invalid token: not a signed JWT");
    CHECK(message("Bearer !!!.e30.sig") == "Invalid token: malformed Authorization header");
    CHECK(message("Bearer e30.e30.sig") == "Invalid token: the JWT header has no algorithm");
    // The dashboard's lower-case scheme works.
    CHECK(authenticator.Authenticate("bearer " + Alpha().UserToken("bob").access_token));
}

TEST_CASE("many threads verify at once") {
    Verifier verifier;
    std::vector<std::string> tokens = {
        Alpha().UserToken("alice").access_token,
        Alpha().UserToken("bob").access_token,
        Beta().UserToken("bob").access_token,
        Gamma().UserToken("alice").access_token};
    std::atomic<int> ok{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 100; ++i) {
                if (verifier.Auth(tokens[static_cast<std::size_t>((t + i) % 4)])) {
                    ++ok;
                }
            }
        });
    }
    for (auto& thread : threads) {
        thread.join();
    }
    CHECK(ok == 800);
    CHECK(verifier.http->Count("/introspect") == 1);  // beta's token introspected once, then cached
}
