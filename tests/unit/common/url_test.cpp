#include <common/http_client.hpp>

#include <catch2/catch.hpp>

using orch::http::ParseUrl;

TEST_CASE("URLs are split into scheme, host, port and target", "[common][url]") {
    auto u = ParseUrl("https://iam.example.org/realms/x?y=1#frag");
    REQUIRE(u);
    CHECK(u->scheme == "https");
    CHECK(u->host == "iam.example.org");
    CHECK(u->port == "443");
    CHECK(u->target == "/realms/x?y=1");
    auto v = ParseUrl("http://user:pw@127.0.0.1:8080");
    REQUIRE(v);
    CHECK(v->host == "127.0.0.1");
    CHECK(v->port == "8080");
    CHECK(v->target == "/");
    auto w = ParseUrl("http://[::1]:99/p");
    REQUIRE(w);
    CHECK(w->host == "::1");
    CHECK(w->port == "99");
}

TEST_CASE("bad URLs are refused with the reason", "[common][url]") {
    CHECK_FALSE(ParseUrl("ftp://x/"));
    CHECK_FALSE(ParseUrl("no-scheme"));
    CHECK_FALSE(ParseUrl("http:///path"));
    CHECK_FALSE(ParseUrl("http://h:80a/"));
}

TEST_CASE("percent encoding round-trips", "[common][url]") {
    CHECK(orch::http::UrlEncode("a b/c@d") == "a%20b%2Fc%40d");
    CHECK(orch::http::UrlDecode("a%20b+c%2", true) == "a b c%2");
    CHECK(orch::http::UrlDecode("sub%40https%3A%2F%2Fiam", false) == "sub@https://iam");
}

TEST_CASE("header lookup ignores case", "[common][url]") {
    orch::http::Headers h = {{"Content-Type", "application/json"}};
    CHECK(orch::http::FindHeader(h, "content-type") == "application/json");
    CHECK(orch::http::FindHeader(h, "accept").empty());
}
