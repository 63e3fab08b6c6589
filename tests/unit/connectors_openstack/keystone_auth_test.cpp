#include "fake_openstack.hpp"

#include <connectors/keystone_auth.hpp>
#include <connectors/site_client_factory.hpp>

#include <catch2/catch.hpp>

using orch::Json;
using orch::connectors::Failure;
using orch::connectors::FailureKind;
using orch::connectors::KeystoneAuth;
using orch::connectors::KeystoneOptions;
using orch::connectors::ScopedToken;
using orch::test::FakeClient;
using orch::test::JsonResponse;

namespace {

Json BodyOf(const orch::http::ClientRequest& request) {
    auto parsed = orch::ParseJson(request.body);
    REQUIRE(parsed);
    return *parsed;
}

ScopedToken MustToken(KeystoneAuth& auth, const orch::connectors::SiteTarget& target) {
    auto token = auth.Token(target);
    if (auto* failure = std::get_if<Failure>(&token)) {
        FAIL(failure->message);
    }
    return std::get<ScopedToken>(token);
}

}  // namespace

TEST_CASE("password authentication scopes to the project by name, or by id when it is one", "[openstack][keystone]") {
    FakeClient client;
    orch::test::AddKeystone(client);
    orch::connectors::SharedClientFactory clients(client);
    const orch::ManualClock clock;
    KeystoneAuth auth(clients, clock);
    auto site = orch::test::PasswordSite();
    site.options["user_domain"] = "federated";

    const ScopedToken token = MustToken(auth, site);
    CHECK(token.token == "token-1");
    CHECK(token.project_id == "0123456789abcdef0123456789abcdef");
    const auto sent = client.Requests("POST", "/v3/auth/tokens");
    REQUIRE(sent.size() == 1);
    CHECK(sent[0].url == "http://keystone.test:5000/v3/auth/tokens");
    const Json body = BodyOf(sent[0]);
    CHECK(body["auth"]["identity"]["methods"] == Json::array({"password"}));
    CHECK(
        body["auth"]["identity"]["password"]["user"] ==
        Json{{"name", "alice"}, {"domain", {{"name", "federated"}}}, {"password", "s3cret"}}
    );
    CHECK(body["auth"]["scope"] == Json{{"project", {{"name", "gpu-project"}, {"domain", {{"name", "Default"}}}}}});

    site.project = "0123456789abcdef0123456789abcdef";
    (void)MustToken(auth, site);
    CHECK(
        BodyOf(client.Requests("POST", "/v3/auth/tokens").back())["auth"]["scope"] ==
        Json{{"project", {{"id", "0123456789abcdef0123456789abcdef"}}}}
    );
}

TEST_CASE("an application credential is sent without a scope (Keystone refuses one)", "[openstack][keystone]") {
    FakeClient client;
    orch::test::AddKeystone(client);
    orch::connectors::SharedClientFactory clients(client);
    const orch::ManualClock clock;
    KeystoneAuth auth(clients, clock);
    auto site = orch::test::PasswordSite();
    site.credentials = {};
    site.credentials.application_credential_id = "ac-id";
    site.credentials.application_credential_secret = "ac-secret";
    (void)MustToken(auth, site);
    const Json body = BodyOf(client.Requests("POST", "/v3/auth/tokens").at(0));
    CHECK(
        body ==
        Json{
            {"auth",
             {{"identity",
               {{"methods", {"application_credential"}},
                {"application_credential", {{"id", "ac-id"}, {"secret", "ac-secret"}}}}}}}}
    );
}

TEST_CASE("OIDC federation: IAM token → unscoped token → the site's project → scoped token", "[openstack][keystone]") {
    FakeClient client;
    orch::test::AddKeystone(client);
    client.Route(
        "POST",
        "/v3/OS-FEDERATION/identity_providers/egi-iam/protocols/oidc/auth",
        [](const orch::http::ClientRequest& r) {
            CHECK_THAT(orch::http::FindHeader(r.headers, "Authorization"), Catch::StartsWith("Bearer "));
            CHECK(r.body.empty());
            return JsonResponse(201, {{"token", {{"methods", {"openid"}}}}}, {{"X-Subject-Token", "unscoped-1"}});
        }
    );
    client.Route("GET", "/v3/auth/projects", [](const orch::http::ClientRequest& r) {
        CHECK(orch::http::FindHeader(r.headers, "X-Auth-Token") == "unscoped-1");
        return JsonResponse(
            200, {{"projects", {{{"id", "p-other"}, {"name", "other"}}, {{"id", "p-gpu"}, {"name", "gpu-project"}}}}}
        );
    });
    orch::connectors::SharedClientFactory clients(client);
    const orch::ManualClock clock;
    KeystoneAuth auth(clients, clock);
    auto site = orch::test::PasswordSite();
    site.credentials = {};
    site.credentials.bearer_token = "iam-access-token";
    site.options["identity_provider"] = "egi-iam";
    site.options["protocol"] = "oidc";

    const ScopedToken token = MustToken(auth, site);
    CHECK(token.token == "token-1");
    const auto federated = client.Requests("POST", "/v3/OS-FEDERATION/identity_providers/egi-iam/protocols/oidc/auth");
    REQUIRE(federated.size() == 1);
    CHECK(orch::http::FindHeader(federated[0].headers, "Authorization") == "Bearer iam-access-token");
    const Json rescope = BodyOf(client.Requests("POST", "/v3/auth/tokens").at(0));
    CHECK(
        rescope ==
        Json{
            {"auth",
             {{"identity", {{"methods", {"token"}}, {"token", {{"id", "unscoped-1"}}}}},
              {"scope", {{"project", {{"id", "p-gpu"}}}}}}}}
    );

    SECTION("a site that names no project works when the user has exactly one") {
        client.Route("GET", "/v3/auth/projects", [](const orch::http::ClientRequest&) {
            return JsonResponse(200, {{"projects", {{{"id", "p-only"}, {"name", "only"}}}}});
        });
        site.project.clear();
        site.credentials.bearer_token = "another-token";
        (void)MustToken(auth, site);
        CHECK(BodyOf(client.Requests("POST", "/v3/auth/tokens").back())["auth"]["scope"]["project"]["id"] == "p-only");
    }
    SECTION("a project the user cannot use is a try-another-site failure naming it") {
        site.project = "not-mine";
        site.credentials.bearer_token = "another-token";
        auto failed = auth.Token(site);
        REQUIRE(std::holds_alternative<Failure>(failed));
        CHECK(std::get<Failure>(failed).kind == FailureKind::kTryAnotherSite);
        CHECK_THAT(std::get<Failure>(failed).message, Catch::Contains("not-mine"));
    }
    SECTION("an IAM token Keystone refuses is reported with Keystone's words") {
        client.Route("POST", "/v3/OS-FEDERATION/", [](const orch::http::ClientRequest&) {
            return JsonResponse(
                401, {{"error", {{"code", 401}, {"message", "The request you have made requires authentication."}}}}
            );
        });
        site.credentials.bearer_token = "expired-token";
        auto failed = auth.Token(site);
        REQUIRE(std::holds_alternative<Failure>(failed));
        CHECK(std::get<Failure>(failed).kind == FailureKind::kTryAnotherSite);
        CHECK_THAT(
            std::get<Failure>(failed).message, Catch::Contains("requires authentication") && Catch::Contains("egi-iam")
        );
        CHECK_THAT(std::get<Failure>(failed).message, !Catch::Contains("expired-token"));
    }
}

TEST_CASE("tokens are cached per credentials until shortly before they expire", "[openstack][keystone]") {
    FakeClient client;
    orch::test::AddKeystone(client, "2030-01-01T12:00:00.000000Z");
    orch::ManualClock clock(std::chrono::system_clock::from_time_t(1893495600));  // 2030-01-01T11:00:00Z
    KeystoneOptions options;
    options.refresh_margin = std::chrono::minutes(5);
    orch::connectors::SharedClientFactory clients(client);
    KeystoneAuth auth(clients, clock, options);
    auto site = orch::test::PasswordSite();

    CHECK(MustToken(auth, site).token == "token-1");
    CHECK(MustToken(auth, site).token == "token-1");
    CHECK(client.Requests("POST", "/v3/auth/tokens").size() == 1);

    auto other_user = site;
    other_user.credentials.username = "bob";
    CHECK(MustToken(auth, other_user).token == "token-2");
    auto other_password = site;
    other_password.credentials.password = "changed";
    CHECK(MustToken(auth, other_password).token == "token-3");

    clock.Advance(std::chrono::minutes(54));  // 6 minutes left: still outside the margin
    CHECK(MustToken(auth, site).token == "token-1");
    clock.Advance(std::chrono::minutes(2));  // 4 minutes left: renewed
    CHECK(MustToken(auth, site).token == "token-4");

    auth.Invalidate(site);
    CHECK(MustToken(auth, site).token == "token-5");
}

TEST_CASE("Keystone failures and missing credentials are typed", "[openstack][keystone]") {
    FakeClient client;
    orch::connectors::SharedClientFactory clients(client);
    const orch::ManualClock clock;
    KeystoneAuth auth(clients, clock);
    auto site = orch::test::PasswordSite();
    SECTION("wrong password") {
        client.Route("POST", "/v3/auth/tokens", [](const orch::http::ClientRequest&) {
            return JsonResponse(
                401, {{"error", {{"code", 401}, {"message", "The request you have made requires authentication."}}}}
            );
        });
        auto failed = auth.Token(site);
        REQUIRE(std::holds_alternative<Failure>(failed));
        CHECK(std::get<Failure>(failed).kind == FailureKind::kTryAnotherSite);
        CHECK_THAT(std::get<Failure>(failed).message, Catch::Contains("HTTP 401"));
        CHECK_THAT(std::get<Failure>(failed).message, !Catch::Contains("s3cret"));
    }
    SECTION("Keystone down") {
        client.Route(
            "POST",
            "/v3/auth/tokens",
            [](const orch::http::ClientRequest&) -> orch::Result<orch::http::ClientResponse> {
                return orch::Error::Unavailable("connection refused");
            }
        );
        auto failed = auth.Token(site);
        REQUIRE(std::holds_alternative<Failure>(failed));
        CHECK(std::get<Failure>(failed).kind == FailureKind::kRetryHere);
    }
    SECTION("a token without a readable expiry is not trusted") {
        client.Route("POST", "/v3/auth/tokens", [](const orch::http::ClientRequest&) {
            return JsonResponse(201, {{"token", {{"expires_at", "soon"}}}}, {{"X-Subject-Token", "t"}});
        });
        CHECK(std::holds_alternative<Failure>(auth.Token(site)));
    }
    SECTION("no credentials at all") {
        site.credentials = {};
        auto failed = auth.Token(site);
        REQUIRE(std::holds_alternative<Failure>(failed));
        CHECK(std::get<Failure>(failed).kind == FailureKind::kTryAnotherSite);
        CHECK(client.requests.empty());
    }
}

TEST_CASE("catalog lookup picks the region and interface", "[openstack][keystone]") {
    FakeClient client;
    orch::test::AddKeystone(client);
    orch::connectors::SharedClientFactory clients(client);
    const orch::ManualClock clock;
    KeystoneAuth auth(clients, clock);
    const ScopedToken token = MustToken(auth, orch::test::PasswordSite());
    auto url = [&](const std::string& type, const std::string& region, const std::string& interface) {
        auto found = KeystoneAuth::Endpoint(token, type, region, interface);
        return std::holds_alternative<std::string>(found) ? std::get<std::string>(found)
                                                          : "failure: " + std::get<Failure>(found).message;
    };
    CHECK(url("compute", "RegionOne", "public") == "http://nova.test:8774/v2.1");
    CHECK(url("compute", "RegionTwo", "public") == "http://nova-two.test/v2.1");
    CHECK(url("compute", "RegionOne", "internal") == "http://nova-internal.test/v2.1");
    CHECK(url("image", "", "public") == "http://glance.test:9292");
    CHECK_THAT(url("volumev3", "RegionOne", "public"), Catch::StartsWith("failure: ") && Catch::Contains("volumev3"));
}
