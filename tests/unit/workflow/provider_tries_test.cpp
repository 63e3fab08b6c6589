// perProviderMaxRetries (the 2025 rewrite's per-provider retries): each provider is tried up to N
// times before the next, its tries share one providerTimeoutMins, and maxProvidersRetry still
// counts providers. Driven one due job at a time over the in-memory stores, a fake connector and
// a ManualClock (as deploy_steps_test.cpp).
#include "test_support/handler_harness.hpp"

#include <common/http_client.hpp>
#include <orchestrator/domain/attempt.hpp>
#include <orchestrator/workflow/deployment_steps.hpp>
#include <orchestrator/workflow/engine.hpp>

#include <catch2/catch.hpp>

namespace {

using orch::Json;
using orch::connectors::FailureKind;
using orch::domain::AttemptOutcome;
using orch::domain::Status;
using std::chrono::seconds;

struct Rig {
    orch::test::HandlerHarness api;
    orch::test::FakePlacer placer{{"SITE-A", "SITE-B", "SITE-C"}};
    orch::test::FakeConnector connector;
    orch::test::FakeRegistry registry{connector};
    orch::test::FakeCredentials credentials;
    std::unique_ptr<orch::http::Client> http = std::move(*orch::http::MakeClient({}));
    orch::workflow::StepServices services{
        api.stores.workflow, api.templates, placer, registry, credentials, *http, api.clock, nullptr, nullptr, {}};
    orch::workflow::Engine engine{api.stores.workflow, {.owner = "unit-test"}};

    Rig() {
        services.options.first_poll = seconds(1);
        services.options.max_poll = seconds(30);
        services.resolve_outputs = [](const auto&, const auto&) {
            return orch::tosca::OutputValues{};
        };
        orch::workflow::RegisterDeploymentSteps(engine, services);
    }

    void RunDue() {
        for (int ran = 0; engine.RunOneDue().value(); ++ran) {
            REQUIRE(ran < 100);
        }
    }

    std::string Create(Json body) {
        body["template"] = "tosca_definitions_version: x";
        body["userGroup"] = "users";
        const auto res = api.Call("POST", "/deployments", body.dump());
        INFO(res.body);
        REQUIRE(res.status == 201);
        return Json::parse(res.body).value("uuid", "");
    }

    std::vector<std::string> AttemptSites(const std::string& id) {
        std::vector<std::string> out;
        const auto attempts = api.stores.deployments.ListAttempts(id);  // outlives the loop
        for (const auto& a : attempts.value()) {
            out.push_back(a.service_id);
        }
        return out;
    }
};

}  // namespace

TEST_CASE("perProviderMaxRetries tries each provider N times before the next", "[workflow][retry]") {
    Rig rig;
    rig.connector.SetBehaviour("SITE-A", {.create_fails = FailureKind::kTryAnotherSite});
    rig.connector.SetBehaviour("SITE-B", {.create_fails = FailureKind::kTryAnotherSite});
    const std::string id = rig.Create(Json{{"perProviderMaxRetries", 2}, {"maxProvidersRetry", 2}});
    rig.RunDue();
    CHECK(rig.connector.CreateCalls("SITE-A", id) == 2);
    CHECK(rig.connector.CreateCalls("SITE-B", id) == 2);
    CHECK(rig.connector.CreateCalls("SITE-C", id) == 0);  // maxProvidersRetry counts providers
    CHECK(
        rig.AttemptSites(id) ==
        std::vector<std::string>{"SITE-A-marathon", "SITE-A-marathon", "SITE-B-marathon", "SITE-B-marathon"}
    );
    const auto d = rig.api.stores.deployments.Get(id).value().value();
    CHECK(d.status == Status::kCreateFailed);
    CHECK_THAT(d.status_reason, Catch::StartsWith("Retries on cloud providers exhausted."));
}

TEST_CASE("without perProviderMaxRetries each provider is tried once, as the original", "[workflow][retry]") {
    Rig rig;
    rig.connector.SetBehaviour("SITE-A", {.create_fails = FailureKind::kTryAnotherSite});
    const std::string id = rig.Create(Json::object());
    rig.RunDue();
    CHECK(rig.connector.CreateCalls("SITE-A", id) == 1);
    CHECK(rig.connector.CreateCalls("SITE-B", id) == 1);
}

TEST_CASE("a provider's tries share its providerTimeoutMins: none starts after it passed", "[workflow][timeout]") {
    Rig rig;
    // The first try never gets ready; the timeout ends it, and the provider's other tries with it.
    rig.connector.SetBehaviour("SITE-A", {.polls_until_ready = 1'000'000});
    const std::string id = rig.Create(Json{{"perProviderMaxRetries", 3}, {"providerTimeoutMins", 1}});
    rig.RunDue();
    for (int i = 0; i < 20 && rig.connector.CreateCalls("SITE-B", id) == 0; ++i) {
        rig.api.clock.Advance(seconds(10));
        rig.RunDue();
    }
    CHECK(rig.connector.CreateCalls("SITE-A", id) == 1);
    CHECK(rig.connector.CreateCalls("SITE-B", id) == 1);
    const auto attempts = rig.api.stores.deployments.ListAttempts(id).value();
    REQUIRE(attempts.size() == 4);
    CHECK(attempts[0].reason == "Provider timeout during deployment (1 minutes)");
    for (int i = 1; i < 3; ++i) {
        CHECK(attempts[static_cast<std::size_t>(i)].service_id == "SITE-A-marathon");
        CHECK(attempts[static_cast<std::size_t>(i)].outcome == AttemptOutcome::kFailed);
        CHECK(
            attempts[static_cast<std::size_t>(i)].reason ==
            "Provider timeout during deployment (1 minutes), over its tries"
        );
    }
    CHECK(attempts[3].service_id == "SITE-B-marathon");
}

TEST_CASE(
    "a failed try's objects are removed before the next try on the same provider, never the next try's",
    "[workflow][retry]"
) {
    Rig rig;
    // The first try is made, then the site reports it failed; the second try on SITE-A works. Its
    // objects carry the first try's names, so a cleanup running beside it would delete them.
    rig.connector.SetBehaviour("SITE-A", {.poll_fails = FailureKind::kTryAnotherSite});
    const std::string id = rig.Create(Json{{"perProviderMaxRetries", 2}, {"maxProvidersRetry", 1}});
    rig.RunDue();
    REQUIRE(rig.connector.CreateCalls("SITE-A", id) == 1);
    rig.api.clock.Advance(seconds(1));
    REQUIRE(rig.engine.RunOneDue().value());  // the poll that finds the first try failed
    rig.connector.SetBehaviour("SITE-A", {});
    for (int i = 0; i < 60; ++i) {
        rig.api.clock.Advance(seconds(1));
        rig.RunDue();
    }
    const auto d = rig.api.stores.deployments.Get(id).value().value();
    INFO(d.status_reason);
    CHECK(d.status == Status::kCreateComplete);
    CHECK(rig.connector.CreateCalls("SITE-A", id) == 2);
    const auto attempts = rig.api.stores.deployments.ListAttempts(id).value();
    REQUIRE(attempts.size() == 2);
    CHECK(attempts[0].outcome == AttemptOutcome::kFailed);
    CHECK(attempts[1].outcome == AttemptOutcome::kSucceeded);
}
