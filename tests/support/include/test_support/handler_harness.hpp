#pragma once

// REST handlers without a server process, a socket or PostgreSQL: the real router and handlers
// over the in-memory stores, a FakeAuthenticator and a ManualClock. Build a request, Call(), read
// the Response. Unmatched paths are answered 404/405 with the bodies the HTTP server gives them.
// (tests/e2e/api/api_harness.hpp is the other end: the real binary on a real database.)
#include "test_support/fakes.hpp"
#include "test_support/in_memory_stores.hpp"

#include <common/clock.hpp>
#include <orchestrator/api/api_context.hpp>
#include <orchestrator/server/router.hpp>

#include <atomic>
#include <string>

namespace orch::test {

class HandlerHarness {
   public:
    /// Deployment, resource, placement and types-profile routes, as main registers them.
    HandlerHarness();

    /// `target` is path and query as sent ("/deployments?page=1"). Every request carries a bearer
    /// token (the FakeAuthenticator answers `principal` for any) and the JSON content type.
    server::Response Call(
        const std::string& method,
        const std::string& target,
        const std::string& body = "",
        http::Headers headers = {{"Content-Type", "application/json"}}
    );

    /// The caller every request is authenticated as (alice of https://iam.example/ at first).
    auth::Principal& principal() { return authenticator.principal; }
    /// A user of `issuer` with the scopes the API asks of users for reads, writes and actions.
    static auth::Principal User(const std::string& issuer, const std::string& subject);

    ManualClock clock;
    InMemoryStores stores{clock};
    FakeAuthenticator authenticator;
    FakeTemplateService templates{SimpleSpec()};
    auth::AuthConfig auth_config;
    std::atomic<int> wakes{0};  ///< how often a handler woke the workflow
    api::ApiContext ctx{
        stores.deployments,
        templates,
        authenticator,
        nullptr,
        auth_config,
        clock,
        nullptr,
        "http://orchestrator.test",
        [this] {
            ++wakes;
        }};
    server::Router router;
};

}  // namespace orch::test
