#include <orchestrator/server/request.hpp>
#include <orchestrator/server/router.hpp>

#include <catch2/catch.hpp>

using orch::server::Request;
using orch::server::Response;
using orch::server::Router;

namespace {

Router MakeRouter() {
    Router r;
    const auto h = [](const Request&) {
        return Response::Empty(204);
    };
    r.Add("GET", "/deployments", h);
    r.Add("POST", "/deployments", h);
    r.Add("GET", "/deployments/{id}", h);
    r.Add("DELETE", "/deployments/{id}", h);
    r.Add("GET", "/deployments/{id}/resources/filter", h);
    r.Add("GET", "/deployments/{id}/resources/{rid}", h);
    r.Add("GET", "/", h);
    return r;
}

}  // namespace

TEST_CASE("router matches literal and parameter segments", "[orchestrator][router]") {
    const Router r = MakeRouter();
    auto m = r.Find("GET", "/deployments/abc.json");
    REQUIRE(m.route != nullptr);
    CHECK(m.route->pattern == "/deployments/{id}");
    CHECK(m.params.at("id") == "abc.json");  // no suffix pattern matching, as in the original
    auto f = r.Find("GET", "/deployments/d1/resources/filter");
    REQUIRE(f.route != nullptr);
    CHECK(f.route->pattern == "/deployments/{id}/resources/filter");
    auto rid = r.Find("GET", "/deployments/d1/resources/r9");
    REQUIRE(rid.route != nullptr);
    CHECK(rid.params.at("rid") == "r9");
    CHECK(r.Find("GET", "/").route != nullptr);
}

TEST_CASE("router tolerates a trailing slash", "[orchestrator][router]") {
    const Router r = MakeRouter();
    CHECK(r.Find("POST", "/deployments/").route != nullptr);
    CHECK(r.Find("GET", "/deployments/x/").params.at("id") == "x");
}

TEST_CASE("router tells a wrong method from an unknown path", "[orchestrator][router]") {
    const Router r = MakeRouter();
    auto wrong = r.Find("PUT", "/deployments");
    CHECK(wrong.route == nullptr);
    CHECK(wrong.allowed_methods == std::vector<std::string>{"GET", "POST"});
    auto unknown = r.Find("GET", "/nothing/here");
    CHECK(unknown.route == nullptr);
    CHECK(unknown.allowed_methods.empty());
}

TEST_CASE("query strings are decoded in order", "[orchestrator][router]") {
    auto q = orch::server::ParseQuery("createdBy=sub@https://iam.example/&size=5&x&sort=a%2Cdesc&sort=b+c");
    REQUIRE(q.size() == 5);
    CHECK(q[0].second == "sub@https://iam.example/");
    CHECK(q[2].first == "x");
    CHECK(q[2].second.empty());
    Request req;
    req.query = q;
    CHECK(req.QueryAll("sort") == std::vector<std::string>{"a,desc", "b c"});
    CHECK(*req.Query("size") == "5");
    CHECK_FALSE(req.Query("page").has_value());
}
