// Response links from forwarding headers: only what reaches BaseUrl counts, and the server
// passes forwarding headers only from trusted proxies (ApplyProxyTrust, tested beside it).
#include <orchestrator/api/links.hpp>
#include <orchestrator/server/request_checks.hpp>

#include <catch2/catch.hpp>

using orch::api::BaseUrl;
using orch::server::ApplyProxyTrust;
using orch::server::ProxyTrust;
using orch::server::Request;

namespace {

Request From(std::string peer, orch::http::Headers extra) {
    Request r;
    r.method = "GET";
    r.path = "/deployments";
    r.remote_address = std::move(peer);
    r.headers = {{"Host", "orch.local:8080"}};
    r.headers.insert(r.headers.end(), extra.begin(), extra.end());
    return r;
}

std::string LinksBase(const Request& raw, const ProxyTrust& trust) {
    Request r = raw;
    ApplyProxyTrust(r, trust);
    return BaseUrl(r, "");
}

}  // namespace

TEST_CASE("X-Forwarded-* from an untrusted peer does not rewrite links", "[security][headers]") {
    const auto r = From(
        "203.0.113.5",
        {{"X-Forwarded-Host", "evil.example"}, {"X-Forwarded-Proto", "https"}, {"X-Forwarded-Prefix", "/phish"}}
    );
    CHECK(LinksBase(r, ProxyTrust()) == "http://orch.local:8080");
    const auto trust = ProxyTrust::FromList({"10.0.0.0/8"});
    REQUIRE(trust);
    CHECK(LinksBase(r, *trust) == "http://orch.local:8080");
}

TEST_CASE("forwarding headers from a trusted proxy build the links", "[security][headers]") {
    const auto trust = ProxyTrust::FromList({"10.0.0.0/8"});
    REQUIRE(trust);
    const auto xf = From(
        "10.0.0.2",
        {{"X-Forwarded-Host", "paas.example.org"},
         {"X-Forwarded-Proto", "https"},
         {"X-Forwarded-Prefix", "/orchestrator"}}
    );
    CHECK(LinksBase(xf, *trust) == "https://paas.example.org/orchestrator");
    const auto rfc =
        From("10.0.0.2", {{"Forwarded", "for=192.0.2.60;proto=https;host=\"paas.example.org\", for=10.0.0.9"}});
    CHECK(LinksBase(rfc, *trust) == "https://paas.example.org");
    const auto ssl = From("10.0.0.2", {{"X-Forwarded-Ssl", "on"}, {"X-Forwarded-Host", "paas.example.org"}});
    CHECK(LinksBase(ssl, *trust) == "https://paas.example.org");
    // Forwarded wins over X-Forwarded-* when both are sent.
    const auto both = From(
        "10.0.0.2",
        {{"Forwarded", "proto=https;host=a.example"}, {"X-Forwarded-Host", "b.example"}, {"X-Forwarded-Proto", "http"}}
    );
    CHECK(LinksBase(both, *trust) == "https://a.example");
    // Forwarded and X-Forwarded-Ssl from an untrusted peer: ignored.
    const auto untrusted =
        From("203.0.113.5", {{"Forwarded", "proto=https;host=evil.example"}, {"X-Forwarded-Ssl", "on"}});
    CHECK(LinksBase(untrusted, *trust) == "http://orch.local:8080");
}
