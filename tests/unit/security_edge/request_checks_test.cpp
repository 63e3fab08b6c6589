#include <orchestrator/server/request_checks.hpp>

#include <catch2/catch.hpp>

using orch::server::ApplyProxyTrust;
using orch::server::CheckRequest;
using orch::server::ProxyTrust;
using orch::server::Request;

namespace {

Request Get(std::vector<std::pair<std::string, std::string>> query = {}) {
    Request r;
    r.method = "GET";
    r.path = "/deployments";
    r.query = std::move(query);
    r.headers = {{"Host", "orchestrator"}};
    r.remote_address = "192.0.2.10";
    return r;
}

}  // namespace

TEST_CASE("a repeated Authorization header (or Host, Content-Length, ...) is refused", "[security][headers]") {
    for (const char* name :
         {"Authorization", "authorization", "Host", "Content-Length", "Content-Type", "Transfer-Encoding"}) {
        INFO(name);
        Request r = Get();
        r.headers.emplace_back(name, "a");
        r.headers.emplace_back(name, "b");
        const auto checked = CheckRequest(r);
        REQUIRE_FALSE(checked);
        CHECK(checked.error().code == orch::ErrorCode::kInvalidArgument);
    }
    Request both = Get();
    both.headers.emplace_back("Content-Length", "3");
    both.headers.emplace_back("Transfer-Encoding", "chunked");
    CHECK_FALSE(CheckRequest(both));
    Request fine = Get();
    fine.headers.emplace_back("Authorization", "Bearer x");
    fine.headers.emplace_back("Accept", "a");
    fine.headers.emplace_back("Accept", "b");
    CHECK(CheckRequest(fine));
}

TEST_CASE("query parameters with NUL or invalid UTF-8 are refused naming the parameter", "[security][input]") {
    for (const std::string& bad :
         {std::string("a\0b", 3),
          std::string("\xff"),
          std::string("\xc0\xaf"),
          std::string("\xed\xa0\x80"),
          std::string("\xe2\x82")}) {
        for (const char* name : {"userGroup", "createdBy", "excludedStatus", "type"}) {
            const auto checked = CheckRequest(Get({{"page", "0"}, {name, bad}}));
            REQUIRE_FALSE(checked);
            CHECK(checked.error().message.find(std::string("'") + name + "'") != std::string::npos);
        }
    }
    CHECK_FALSE(CheckRequest(Get({{std::string("a\0", 2), "x"}})));
    Request path = Get();
    path.path = std::string("/deployments/\0x", 15);
    CHECK_FALSE(CheckRequest(path));
    CHECK(CheckRequest(Get({{"userGroup", "gr\xc3\xbcppe \xe2\x82\xac \xf0\x9f\x98\x80"}})));
}

TEST_CASE("forwarding headers from an untrusted peer are dropped, from a trusted one kept", "[security][headers]") {
    const auto trust = ProxyTrust::FromList({"10.0.0.0/8", "::1"});
    REQUIRE(trust);
    Request r = Get();
    r.headers.emplace_back("X-Forwarded-Host", "evil.example");
    r.headers.emplace_back("x-forwarded-proto", "https");
    r.headers.emplace_back("Forwarded", "host=evil.example;proto=https");
    r.headers.emplace_back("X-Forwarded-For", "203.0.113.9");
    Request untrusted = r;
    ApplyProxyTrust(untrusted, *trust);
    CHECK(untrusted.Header("X-Forwarded-Host").empty());
    CHECK(untrusted.Header("X-Forwarded-Proto").empty());
    CHECK(untrusted.Header("Forwarded").empty());
    CHECK(untrusted.Header("Host") == "orchestrator");
    CHECK(untrusted.remote_address == "192.0.2.10");
    Request none = r;
    none.remote_address = "10.1.1.1";
    ApplyProxyTrust(none, ProxyTrust());  // the default trusts no one
    CHECK(none.Header("Forwarded").empty());
    Request trusted = r;
    trusted.remote_address = "::ffff:10.1.2.3";
    ApplyProxyTrust(trusted, *trust);
    CHECK(trusted.Header("X-Forwarded-Host") == "evil.example");
    CHECK(trusted.remote_address == "203.0.113.9");
    Request rfc = Get();
    rfc.remote_address = "::1";
    rfc.headers.emplace_back("Forwarded", "for=\"[2001:db8::7]:4711\";proto=https, for=10.0.0.1");
    ApplyProxyTrust(rfc, *trust);
    CHECK(rfc.remote_address == "2001:db8::7");
    CHECK_FALSE(ProxyTrust::FromList({"proxy.example"}));
}
