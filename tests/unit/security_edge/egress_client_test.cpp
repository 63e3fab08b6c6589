// The HTTP client with an egress policy, against real servers on 127.0.0.1: the policy is
// applied to resolved addresses (a host name that resolves to loopback is refused too) and
// redirects are not followed.
#include "test_support/fixture_http_server.hpp"
#include "test_support/raw_http.hpp"

#include <common/egress_policy.hpp>
#include <common/http_client.hpp>

#include <catch2/catch.hpp>

#include <memory>

using orch::ErrorCode;
using orch::http::ClientOptions;
using orch::http::ClientRequest;
using orch::http::EgressPolicy;
using orch::http::MakeClient;

namespace {

std::unique_ptr<orch::http::Client> ClientWith(std::shared_ptr<const EgressPolicy> policy) {
    ClientOptions options;
    options.egress = std::move(policy);
    auto client = MakeClient(options);
    REQUIRE(client);
    return std::move(*client);
}

ClientRequest Post(const std::string& url) {
    ClientRequest r;
    r.method = "POST";
    r.url = url;
    r.body = "{}";
    r.timeout = std::chrono::seconds(5);
    return r;
}

}  // namespace

TEST_CASE("a user-directed request to a loopback address is refused after resolution", "[security][egress]") {
    auto routes = std::make_shared<orch::test::FixtureRoutes>();
    routes->Route("POST", "/cb", [](const auto&) {
        return orch::test::FixtureResponse{200, "application/json", "{}"};
    });
    orch::test::FixtureHttpServer server(routes);
    auto client = ClientWith(std::make_shared<const EgressPolicy>());
    for (const std::string host : {"127.0.0.1", "localhost", "2130706433", "[::ffff:127.0.0.1]"}) {
        INFO(host);
        const auto res = client->Send(Post("http://" + host + ":" + std::to_string(server.port()) + "/cb"));
        REQUIRE_FALSE(res);
        CHECK(res.error().code == ErrorCode::kPermissionDenied);
    }
    CHECK(routes->Requests().empty());
}

TEST_CASE("the allow-list lets a user-directed request reach a loopback server", "[security][egress]") {
    auto routes = std::make_shared<orch::test::FixtureRoutes>();
    routes->Route("POST", "/cb", [](const auto&) {
        return orch::test::FixtureResponse{200, "application/json", "{}"};
    });
    orch::test::FixtureHttpServer server(routes);
    auto policy = EgressPolicy::FromAllowList({"127.0.0.1"});
    REQUIRE(policy);
    auto client = ClientWith(std::make_shared<const EgressPolicy>(*policy));
    const auto res = client->Send(Post(server.url() + "/cb"));
    REQUIRE(res);
    CHECK(res->status == 200);
    CHECK(routes->Requests().size() == 1);
}

TEST_CASE("a user-directed request does not follow redirects", "[security][egress]") {
    auto routes = std::make_shared<orch::test::FixtureRoutes>();
    routes->Route("POST", "/target", [](const auto&) {
        return orch::test::FixtureResponse{200, "application/json", "{}"};
    });
    orch::test::FixtureHttpServer target(routes);
    orch::test::CannedHttpServer redirector(
        "HTTP/1.1 307 Temporary Redirect\r\nLocation: " + target.url() +
        "/target\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    );
    auto policy = EgressPolicy::FromAllowList({"127.0.0.1"});
    REQUIRE(policy);
    ClientOptions options;
    options.egress = std::make_shared<const EgressPolicy>(*policy);
    options.max_redirects = 5;  // even when asked for
    auto client = MakeClient(options);
    REQUIRE(client);
    const auto res = (*client)->Send(Post("http://127.0.0.1:" + std::to_string(redirector.port()) + "/cb"));
    REQUIRE(res);
    CHECK(res->status == 307);
    CHECK(redirector.hits() == 1);
    CHECK(routes->Requests().empty());
}
