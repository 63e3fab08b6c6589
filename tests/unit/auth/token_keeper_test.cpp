#include "orchestrator/auth/token_keeper.hpp"

#include "common/log.hpp"
#include "fake_idp.hpp"

#include <catch2/catch.hpp>

#include <thread>

using namespace orch;
using namespace orch::auth;
using orch::test::FakeIdp;
using orch::test::JsonResponse;

namespace {

// The IdP side of exchange and refresh, scripted: counts grants and rotates refresh tokens.
struct TokenEndpoint {
    int exchanges = 0;
    int lifetime = 3600;
    int refreshes = 0;
    std::string granted_scope = "openid profile offline_access fts:submit-transfer";
    bool rotate = false;
    bool refresh_rejected = false;
    std::vector<std::map<std::string, std::string>> forms;

    http::ClientResponse operator()(const std::map<std::string, std::string>& form) {
        forms.push_back(form);
        if (form.at("grant_type") == "urn:ietf:params:oauth:grant-type:token-exchange") {
            ++exchanges;
            return JsonResponse(
                200,
                {{"access_token", "AT-x" + std::to_string(exchanges)},
                 {"refresh_token", "RT-secret-1"},
                 {"expires_in", lifetime},
                 {"scope", granted_scope},
                 {"token_type", "Bearer"}}
            );
        }
        if (form.at("grant_type") == "refresh_token") {
            ++refreshes;
            if (refresh_rejected) {
                return JsonResponse(
                    400,
                    {{"error", "invalid_grant"},
                     {"error_description", "refresh token " + form.at("refresh_token") + " is expired"}}
                );
            }
            Json body = {
                {"access_token", "AT-r" + std::to_string(refreshes)},
                {"expires_in", lifetime},
                {"token_type", "Bearer"}};
            if (rotate) {
                body["refresh_token"] = "RT-secret-" + std::to_string(refreshes + 1);
            }
            return JsonResponse(200, body);
        }
        return JsonResponse(400, {{"error", "unsupported_grant_type"}});
    }
};

struct Rig {
    FakeIdp idp;
    TokenEndpoint endpoint;
    InMemoryRefreshTokenStore store;
    orch::SystemClock clock;
    std::shared_ptr<IssuerDirectory> directory;
    std::unique_ptr<TokenKeeper> keeper;
    Principal alice;

    Rig() {
        idp.Add("alpha");
        idp.Get("alpha").token_endpoint = [this](const auto& form) {
            return endpoint(form);
        };
        AuthConfig config;
        config.mode = AuthMode::kOidc;
        config.issuers = {idp.ConfigFor("alpha")};
        config.issuers[0].exchange_audience = "vault-audience";
        directory = std::make_shared<IssuerDirectory>(config, idp, clock);
        auto cipher = TokenCipher::Create(std::string(32, 'k'));
        REQUIRE(cipher);
        keeper = std::make_unique<TokenKeeper>(directory, store, std::move(*cipher), std::chrono::seconds(300));
        alice.issuer = "https://alpha.test/";
        alice.subject = "alice";
    }
};

}  // namespace

TEST_CASE("enrolling exchanges the user's token (RFC 8693) and stores the refresh token encrypted") {
    Rig rig;
    REQUIRE(rig.keeper->Enroll(rig.alice, "user-access-token"));
    REQUIRE(rig.endpoint.forms.size() == 1);
    const auto& form = rig.endpoint.forms[0];
    CHECK(form.at("grant_type") == "urn:ietf:params:oauth:grant-type:token-exchange");
    CHECK(form.at("subject_token") == "user-access-token");
    CHECK(form.at("subject_token_type") == "urn:ietf:params:oauth:token-type:access_token");
    CHECK(form.at("scope") == "openid profile offline_access fts:submit-transfer");
    CHECK(form.at("audience") == "vault-audience");

    auto row = rig.store.Get("https://alpha.test/", "alice");
    REQUIRE(row);
    REQUIRE(row->has_value());
    CHECK((*row)->find("RT-secret") == std::string::npos);
    // The exchanged access token is reused: no refresh yet.
    CHECK(rig.keeper->AccessTokenFor("https://alpha.test/", "alice").value() == "AT-x1");
    CHECK(rig.endpoint.refreshes == 0);
}

TEST_CASE("a stored refresh token that is still active is kept, an inactive one is replaced") {
    Rig rig;
    REQUIRE(rig.keeper->Enroll(rig.alice, "user-access-token"));
    rig.idp.Get("alpha").introspection["RT-secret-1"] = {{"active", true}};
    REQUIRE(rig.keeper->Enroll(rig.alice, "user-access-token-2"));
    CHECK(rig.endpoint.exchanges == 1);
    rig.idp.Get("alpha").introspection.clear();  // now inactive
    REQUIRE(rig.keeper->Enroll(rig.alice, "user-access-token-3"));
    CHECK(rig.endpoint.exchanges == 2);
}

TEST_CASE("the exchange fails unless every configured scope is granted") {
    Rig rig;
    rig.endpoint.granted_scope = "openid profile offline_access";
    auto status = rig.keeper->Enroll(rig.alice, "user-access-token");
    REQUIRE_FALSE(status);
    CHECK(status.error().code == ErrorCode::kPermissionDenied);
    CHECK(status.error().message == "Not all the required scopes have been granted (missing: fts:submit-transfer)");
    CHECK_FALSE(rig.store.Get("https://alpha.test/", "alice")->has_value());
}

TEST_CASE("access tokens are refreshed from the stored refresh token, and rotations are kept") {
    Rig rig;
    rig.endpoint.rotate = true;
    REQUIRE(rig.keeper->Enroll(rig.alice, "user-access-token"));
    rig.keeper->Invalidate("https://alpha.test/", "alice");
    CHECK(rig.keeper->AccessTokenFor("https://alpha.test/", "alice").value() == "AT-r1");
    CHECK(rig.endpoint.forms.back().at("refresh_token") == "RT-secret-1");
    CHECK(rig.endpoint.forms.back().at("audience") == "vault-audience");
    CHECK(rig.keeper->AccessTokenFor("https://alpha.test/", "alice").value() == "AT-r1");  // cached
    CHECK(rig.endpoint.refreshes == 1);
    rig.keeper->Invalidate("https://alpha.test/", "alice");
    CHECK(rig.keeper->AccessTokenFor("https://alpha.test/", "alice").value() == "AT-r2");
    CHECK(rig.endpoint.forms.back().at("refresh_token") == "RT-secret-2");  // the rotated one
}

TEST_CASE("access tokens are renewed shortly before they expire, not after") {
    Rig rig;
    rig.endpoint.lifetime = 4;  // the margin becomes half the lifetime: renew after ~2 s
    REQUIRE(rig.keeper->Enroll(rig.alice, "user-access-token"));
    CHECK(rig.keeper->AccessTokenFor("https://alpha.test/", "alice").value() == "AT-x1");
    CHECK(rig.endpoint.refreshes == 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(2100));
    CHECK(rig.keeper->AccessTokenFor("https://alpha.test/", "alice").value() == "AT-r1");
    CHECK(rig.endpoint.refreshes == 1);
}

TEST_CASE("no stored token, or a rejected one, means the user must log in again, secrets stay out of errors") {
    Rig rig;
    auto none = rig.keeper->AccessTokenFor("https://alpha.test/", "bob");
    REQUIRE_FALSE(none);
    CHECK(none.error().code == ErrorCode::kUnauthenticated);
    CHECK(none.error().message.find("no refresh token is stored for bob@https://alpha.test/") == 0);

    REQUIRE(rig.keeper->Enroll(rig.alice, "user-access-token"));
    rig.keeper->Invalidate("https://alpha.test/", "alice");
    rig.endpoint.refresh_rejected = true;
    auto rejected = rig.keeper->AccessTokenFor("https://alpha.test/", "alice");
    REQUIRE_FALSE(rejected);
    CHECK(rejected.error().code == ErrorCode::kUnauthenticated);
    CHECK(rejected.error().message.find("the user has to log in again") != std::string::npos);
    CHECK(rejected.error().message.find("RT-secret") == std::string::npos);  // the IdP echoed it; we did not

    CHECK_FALSE(rig.keeper->AccessTokenFor("https://unknown.test/", "alice"));
}

TEST_CASE("downstream calls retry once after a 401, with a refreshed token") {
    Rig rig;
    REQUIRE(rig.keeper->Enroll(rig.alice, "user-access-token"));
    struct Downstream final : http::Client {
        std::vector<std::string> seen;
        Result<http::ClientResponse> Send(const http::ClientRequest& request) override {
            seen.push_back(http::FindHeader(request.headers, "Authorization"));
            http::ClientResponse response;
            response.status = seen.size() == 1 ? 401 : 200;
            return response;
        }
    } downstream;
    http::ClientRequest request;
    request.url = "https://im.test/infrastructures";
    auto response = rig.keeper->SendAsUser(downstream, request, "https://alpha.test/", "alice");
    REQUIRE(response);
    CHECK(response->status == 200);
    CHECK(downstream.seen == std::vector<std::string>{"Bearer AT-x1", "Bearer AT-r1"});

    struct AlwaysUnauthorized final : http::Client {
        int calls = 0;
        Result<http::ClientResponse> Send(const http::ClientRequest&) override {
            ++calls;
            http::ClientResponse response;
            response.status = 401;
            return response;
        }
    } refusing;
    auto refused = rig.keeper->SendAsUser(refusing, request, "https://alpha.test/", "alice");
    REQUIRE(refused);
    CHECK(refused->status == 401);
    CHECK(refusing.calls == 2);  // exactly one retry
}

TEST_CASE("forgetting a user removes the stored token") {
    Rig rig;
    REQUIRE(rig.keeper->Enroll(rig.alice, "user-access-token"));
    REQUIRE(rig.keeper->Forget("https://alpha.test/", "alice"));
    CHECK_FALSE(rig.store.Get("https://alpha.test/", "alice")->has_value());
    CHECK(rig.idp.Calls("revoke") == 1);
    CHECK_FALSE(rig.keeper->AccessTokenFor("https://alpha.test/", "alice"));
}

TEST_CASE("the local user needs no tokens") {
    Rig rig;
    CHECK(rig.keeper->Enroll(LocalPrincipal(), ""));
    CHECK(rig.idp.TotalCalls() == 0);
}

TEST_CASE("token keeper logs never contain tokens or client secrets") {
    Rig rig;
    rig.endpoint.rotate = true;
    std::vector<std::string> lines;
    log::SetLevel(log::Level::kDebug);
    log::SetSink([&](std::string_view line) { lines.emplace_back(line); });
    REQUIRE(rig.keeper->Enroll(rig.alice, "user-access-token"));
    rig.keeper->Invalidate("https://alpha.test/", "alice");
    REQUIRE(rig.keeper->AccessTokenFor("https://alpha.test/", "alice"));
    rig.endpoint.refresh_rejected = true;
    rig.keeper->Invalidate("https://alpha.test/", "alice");
    CHECK_FALSE(rig.keeper->AccessTokenFor("https://alpha.test/", "alice"));
    log::ResetSink();
    log::SetLevel(log::Level::kInfo);
    REQUIRE(lines.size() >= 2);
    for (const auto& line : lines) {
        for (const char* secret : {"user-access-token", "RT-secret", "AT-x1", "AT-r1", "orchestrator-secret-value"}) {
            CHECK(line.find(secret) == std::string::npos);
        }
    }
}
