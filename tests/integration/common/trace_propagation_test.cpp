// The real HTTP client sends the thread's trace to the server it calls (sites, on every
// connector call), with a new span id, and leaves a caller's own traceparent alone.
#include "test_support/fixture_http_server.hpp"

#include <common/http_client.hpp>
#include <common/trace_context.hpp>

#include <catch2/catch.hpp>

TEST_CASE("outbound calls carry the current trace with a new span id", "[common][trace]") {
    auto routes = std::make_shared<orch::test::FixtureRoutes>();
    routes->Route("GET", "/v2/apps", [](const orch::test::FixtureRequest&) {
        return orch::test::FixtureResponse{200, "application/json", "{}"};
    });
    orch::test::FixtureHttpServer server(routes);
    auto client = orch::http::MakeClient({});
    REQUIRE(client);
    orch::http::ClientRequest request;
    request.url = server.url() + "/v2/apps";

    REQUIRE((*client)->Send(request));  // outside any trace: no header
    {
        const orch::trace::ScopedTrace trace("4bf92f3577b34da6a3ce929d0e0e4736", false);
        REQUIRE((*client)->Send(request));
        REQUIRE((*client)->Send(request));
        auto own = request;
        own.headers.emplace_back("traceparent", "00-11111111111111111111111111111111-2222222222222222-01");
        REQUIRE((*client)->Send(own));
    }
    const auto seen = routes->Requests();
    REQUIRE(seen.size() == 4);
    CHECK(seen[0].Header("traceparent").empty());
    const auto first = orch::trace::ParseTraceparent(seen[1].Header("traceparent"));
    const auto second = orch::trace::ParseTraceparent(seen[2].Header("traceparent"));
    REQUIRE(first);
    REQUIRE(second);
    CHECK(first->trace_id == "4bf92f3577b34da6a3ce929d0e0e4736");
    CHECK_FALSE(first->sampled);
    CHECK(first->parent_id != second->parent_id);
    CHECK(seen[3].Header("traceparent") == "00-11111111111111111111111111111111-2222222222222222-01");
}
