// Per-deployment OAuth clients at a real provider (oidc-provider with RFC 7591 registration and
// RFC 7592 management enabled, as IAM offers them): registered, visible at the provider, deleted.
#include "oidc_provider.hpp"
#include "orchestrator/auth/client_registration.hpp"
#include "orchestrator/auth/issuer_client.hpp"

#include <catch2/catch.hpp>

using namespace orch;
using namespace orch::auth;
using orch::test::OidcProvider;

namespace {

struct Rig {
    OidcProvider& idp = OidcProvider::Shared("alpha");
    std::unique_ptr<http::Client> http;
    SystemClock clock;
    IssuerConfig issuer;
    AuthConfig limits;
    std::string endpoint;

    Rig() {
        auto client = http::MakeClient({});
        REQUIRE(client);
        http = std::move(*client);
        issuer.issuer = idp.issuer();
        IssuerClient discovery(issuer, limits, *http, clock);
        auto endpoints = discovery.Endpoints();
        REQUIRE(endpoints);
        endpoint = endpoints->registration_endpoint;
    }

    bool Alive(const std::string& client_id) {
        for (const auto& c : idp.RegisteredClients()) {
            if (c.at("client_id") == client_id) {
                return true;
            }
        }
        return false;
    }
};

ClientMetadata Metadata(const std::string& name) {
    ClientMetadata m;
    m.client_name = name;
    m.redirect_uris = {"https://jupyter.example.org/hub/oauth_callback"};
    m.grant_types = {"authorization_code", "refresh_token"};
    m.scope = "openid profile";
    return m;
}

}  // namespace

TEST_CASE("a client registered with the initial access token lives at the provider until deleted") {
    Rig rig;
    REQUIRE(rig.endpoint == rig.idp.issuer() + "register");  // from the discovery document
    ClientRegistration registration(*rig.http, std::chrono::milliseconds(5000));

    auto client = registration.Register(rig.endpoint, OidcProvider::InitialAccessToken(), Metadata("orch-dep-1"));
    REQUIRE(client);
    CHECK_FALSE(client->client_secret.empty());
    CHECK_FALSE(client->registration_access_token.empty());
    CHECK(rig.Alive(client->client_id));

    auto deleted = registration.Delete(*client);
    REQUIRE(deleted);
    CHECK(*deleted == ClientDeletion::kDeleted);
    CHECK_FALSE(rig.Alive(client->client_id));
    // A delete retried after a crash (the record still said "registered") is not an error, but
    // RFC 7592's 401 for an unknown client cannot prove it: unconfirmed, not deleted.
    auto again = registration.Delete(*client);
    REQUIRE(again);
    CHECK(*again == ClientDeletion::kUnconfirmed);
}

TEST_CASE("a registration the provider refuses is an error naming no credential") {
    Rig rig;
    ClientRegistration registration(*rig.http, std::chrono::milliseconds(5000));
    const std::string wrong = "not-the-initial-access-token-0123456789";
    auto client = registration.Register(rig.endpoint, wrong, Metadata("orch-dep-2"));
    REQUIRE_FALSE(client);
    CHECK(client.error().code == ErrorCode::kPermissionDenied);
    CHECK(client.error().message.find(wrong) == std::string::npos);

    auto bad = Metadata("orch-dep-3");
    bad.redirect_uris = {"not a url"};
    auto refused = registration.Register(rig.endpoint, OidcProvider::InitialAccessToken(), bad);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == ErrorCode::kInvalidArgument);
}

// Why a 401 on delete is never taken as "gone": the provider answers a refused token with 401 too,
// and revokes it (RFC 7592 §2.3 SHOULD), after which the client it managed can no longer be
// deleted by anyone holding only that token.
TEST_CASE("a refused registration access token is an unconfirmed delete, not a deleted client") {
    Rig rig;
    ClientRegistration registration(*rig.http, std::chrono::milliseconds(5000));
    auto first = registration.Register(rig.endpoint, OidcProvider::InitialAccessToken(), Metadata("orch-dep-4"));
    auto second = registration.Register(rig.endpoint, OidcProvider::InitialAccessToken(), Metadata("orch-dep-5"));
    REQUIRE(first);
    REQUIRE(second);
    RegisteredClient crossed = *second;
    crossed.registration_access_token = first->registration_access_token;
    auto crossed_delete = registration.Delete(crossed);
    REQUIRE(crossed_delete);
    CHECK(*crossed_delete == ClientDeletion::kUnconfirmed);
    CHECK(rig.Alive(second->client_id));  // the provider kept it...
    auto second_delete = registration.Delete(*second);
    REQUIRE(second_delete);
    CHECK(*second_delete == ClientDeletion::kDeleted);
    CHECK_FALSE(rig.Alive(second->client_id));
    // ...and revoked the first client's token on the mismatch: that client is now unmanageable
    // through RFC 7592, and the delete says so instead of reporting it deleted.
    auto first_delete = registration.Delete(*first);
    REQUIRE(first_delete);
    CHECK(*first_delete == ClientDeletion::kUnconfirmed);
    CHECK(rig.Alive(first->client_id));
}
