// The decorators that meter connectors and placement, around the test fakes, and the observers
// of the workflow engine and the placer: counts and latencies land under bounded labels, and the
// calls pass through unchanged.
#include "test_support/fakes.hpp"

#include <orchestrator/ops/admission_metrics.hpp>
#include <orchestrator/ops/callback_metrics.hpp>
#include <orchestrator/ops/metered_connector.hpp>
#include <orchestrator/ops/metered_placer.hpp>
#include <orchestrator/ops/request_metrics.hpp>
#include <orchestrator/ops/site_watch_metrics.hpp>
#include <orchestrator/ops/workflow_metrics.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>
#include <variant>

namespace {

double Sample(const std::string& text, const std::string& series) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind(series + ' ', 0) == 0) {
            return std::stod(line.substr(series.size() + 1));
        }
    }
    return std::nan("");
}

orch::connectors::DeployRequest RequestOn(const std::string& site, const orch::tosca::DeploymentSpec* spec) {
    orch::connectors::DeployRequest request;
    request.deployment_id = "d1";
    request.spec = spec;
    request.target.site_id = site;
    request.target.kind = orch::connectors::TargetKind::kMarathon;
    return request;
}

}  // namespace

TEST_CASE("connector calls are counted by site, kind, operation and outcome", "[metrics][ops]") {
    orch::test::FakeConnector fake;
    fake.SetBehaviour("site-b", {.create_fails = orch::connectors::FailureKind::kTryAnotherSite});
    orch::test::FakeRegistry inner(fake);
    orch::metrics::Registry registry;
    orch::ops::MeteredConnectorRegistry metered(inner, registry);
    CHECK(metered.Find(orch::connectors::TargetKind::kChronos) == nullptr);
    auto* connector = metered.Find(orch::connectors::TargetKind::kMarathon);
    REQUIRE(connector != nullptr);
    CHECK(connector == metered.Find(orch::connectors::TargetKind::kMarathon));  // one wrapper per connector
    const auto spec = orch::test::SimpleSpec();
    const auto ok = connector->Create(RequestOn("site-a", &spec));
    REQUIRE(std::holds_alternative<orch::connectors::Handle>(ok));
    const auto refused = connector->Create(RequestOn("site-b", &spec));
    CHECK(std::holds_alternative<orch::connectors::Failure>(refused));
    (void)connector->Poll(std::get<orch::connectors::Handle>(ok), spec);
    CHECK(fake.TotalCreates() == 2);  // calls went through
    const auto text = registry.Render();
    CHECK(
        Sample(text, R"(orch_connector_calls_total{site="site-a",kind="MARATHON",operation="create",outcome="ok"})") ==
        1
    );
    CHECK(
        Sample(
            text,
            R"(orch_connector_calls_total{site="site-b",kind="MARATHON",operation="create",outcome="try_another_site"})"
        ) == 1
    );
    CHECK(
        Sample(text, R"(orch_connector_calls_total{site="site-a",kind="MARATHON",operation="poll",outcome="ok"})") == 1
    );
    CHECK(
        Sample(
            text, R"(orch_connector_call_duration_seconds_count{site="site-a",kind="MARATHON",operation="create"})"
        ) == 1
    );
}

TEST_CASE("placement decisions are counted by outcome", "[metrics][ops]") {
    orch::metrics::Registry registry;
    orch::test::FakePlacer some({"site-a"});
    orch::test::FakePlacer none({});
    orch::ops::MeteredPlacer placed(some, registry);
    orch::ops::MeteredPlacer empty(none, registry);
    const auto spec = orch::test::SimpleSpec();
    orch::placement::PlacementRequest request;
    request.spec = &spec;
    REQUIRE(placed.Place(request));
    REQUIRE(empty.Place(request));
    REQUIRE(empty.Place(request));
    const auto text = registry.Render();
    CHECK(Sample(text, R"(orch_placement_decisions_total{outcome="placed"})") == 1);
    CHECK(Sample(text, R"(orch_placement_decisions_total{outcome="no_candidate"})") == 2);
    CHECK(Sample(text, "orch_placement_duration_seconds_count") == 3);
    CHECK(placed.ConfigurationEndpoints() == some.ConfigurationEndpoints());
}

TEST_CASE("request methods outside the standard set share one label value", "[metrics][ops]") {
    CHECK(orch::ops::MethodLabel("GET") == "GET");
    CHECK(orch::ops::MethodLabel("PATCH") == "PATCH");
    CHECK(orch::ops::MethodLabel("BREW") == "other");
    CHECK(orch::ops::MethodLabel("get") == "other");
}

TEST_CASE("placement rejections are counted by the filter that gave them", "[metrics][ops]") {
    orch::metrics::Registry registry;
    orch::ops::PlacementRejectionMetrics metrics(registry);
    metrics.Rejected(orch::placement::RejectionFilter::kVmMatch, 3);
    metrics.Rejected(orch::placement::RejectionFilter::kSla, 1);
    metrics.Rejected(orch::placement::RejectionFilter::kVmMatch, 2);
    const auto text = registry.Render();
    CHECK(Sample(text, R"(orch_placement_rejections_total{reason="vm_match"})") == 5);
    CHECK(Sample(text, R"(orch_placement_rejections_total{reason="sla"})") == 1);
    CHECK(std::isnan(Sample(text, R"(orch_placement_rejections_total{reason="quota"})")));
}

TEST_CASE("the workflow engine's queue depths and step durations are recorded", "[metrics][ops]") {
    orch::metrics::Registry registry;
    orch::ops::WorkflowMetrics metrics(registry);
    metrics.ReadyJobs(4);
    metrics.RunningSteps(2);
    metrics.RunningSteps(1);
    metrics.StepFinished("deploy", orch::workflow::StepOutcome::kRetry, 0.25);
    metrics.StepFinished("deploy", orch::workflow::StepOutcome::kCommit, 0.5);
    metrics.StepFinished("delete", orch::workflow::StepOutcome::kCancelled, 0.1);
    const auto text = registry.Render();
    CHECK(Sample(text, R"(orch_workflow_queue_depth{state="ready"})") == 4);
    CHECK(Sample(text, R"(orch_workflow_queue_depth{state="running"})") == 1);
    CHECK(Sample(text, R"(orch_workflow_job_duration_seconds_count{kind="deploy",outcome="retry"})") == 1);
    CHECK(Sample(text, R"(orch_workflow_job_duration_seconds_count{kind="deploy",outcome="commit"})") == 1);
    CHECK(Sample(text, R"(orch_workflow_job_duration_seconds_count{kind="delete",outcome="cancelled"})") == 1);
}

TEST_CASE("callback delivery tries are counted by outcome with their age", "[metrics][ops]") {
    orch::metrics::Registry registry;
    orch::ops::CallbackMetrics metrics(registry);
    using orch::workflow::CallbackOutcome;
    metrics.CallbackTried(CallbackOutcome::kFailed, std::chrono::milliseconds(0));
    metrics.CallbackTried(CallbackOutcome::kFailed, std::chrono::milliseconds(1'000));
    metrics.CallbackTried(CallbackOutcome::kDelivered, std::chrono::milliseconds(3'000));
    metrics.CallbackTried(CallbackOutcome::kAbandoned, std::chrono::hours(25));
    const auto text = registry.Render();
    CHECK(Sample(text, R"(orch_callback_deliveries_total{outcome="failed"})") == 2);
    CHECK(Sample(text, R"(orch_callback_deliveries_total{outcome="delivered"})") == 1);
    CHECK(Sample(text, R"(orch_callback_deliveries_total{outcome="abandoned"})") == 1);
    CHECK(Sample(text, R"(orch_callback_delivery_age_seconds_sum{outcome="delivered"})") == 3);
    CHECK(Sample(text, R"(orch_callback_delivery_age_seconds_bucket{outcome="abandoned",le="86400"})") == 0);
    CHECK(Sample(text, R"(orch_callback_delivery_age_seconds_count{outcome="abandoned"})") == 1);
}

TEST_CASE(
    "admission metrics: queue length and share per group, zero once a queue empties, wait times", "[ops][admission]"
) {
    orch::metrics::Registry registry;
    orch::ops::AdmissionMetrics metrics(registry);
    metrics.QueueComputed("iss", {{"physics", 3, 0.5}, {"bio", 1, 0.25}});
    auto text = registry.Render();
    CHECK(Sample(text, R"(orch_admission_queue_length{issuer="iss",group="physics"})") == 3);
    CHECK(Sample(text, R"(orch_admission_share{issuer="iss",group="bio"})") == 0.25);

    // physics' queue emptied (absent from the next computation): it reads 0, not its last 3.
    metrics.QueueComputed("iss", {{"bio", 2, 0.5}});
    text = registry.Render();
    CHECK(Sample(text, R"(orch_admission_queue_length{issuer="iss",group="physics"})") == 0);
    CHECK(Sample(text, R"(orch_admission_queue_length{issuer="iss",group="bio"})") == 2);

    metrics.Admitted("iss", "bio", 42);
    metrics.Admitted("iss", "bio", 4000);
    text = registry.Render();
    CHECK(Sample(text, R"(orch_admission_wait_seconds_count{issuer="iss",group="bio"})") == 2);
    CHECK(Sample(text, R"(orch_admission_wait_seconds_bucket{issuer="iss",group="bio",le="60"})") == 1);
}

TEST_CASE("site watcher metrics: streams open, notifications, polls made due, reconnects, errors", "[metrics][ops]") {
    orch::metrics::Registry registry;
    orch::ops::SiteWatchMetrics metrics(registry);
    using orch::connectors::TargetKind;
    using orch::workflow::StreamEnd;
    metrics.StreamOpened(TargetKind::kKubernetes);
    metrics.StreamOpened(TargetKind::kKubernetes);
    metrics.StreamOpened(TargetKind::kMarathon);
    metrics.StreamClosed(TargetKind::kKubernetes);
    metrics.StreamEnded(TargetKind::kKubernetes, StreamEnd::kClosed);
    metrics.StreamEnded(TargetKind::kMarathon, StreamEnd::kRefused);
    metrics.StreamEnded(TargetKind::kMarathon, StreamEnd::kRefused);
    metrics.Notified(TargetKind::kMarathon, 0);
    metrics.Notified(TargetKind::kMarathon, 2);
    metrics.PollNowFailed(TargetKind::kKubernetes);
    metrics.Skipped(TargetKind::kKubernetes, 3);
    const auto text = registry.Render();
    CHECK(Sample(text, R"(orch_site_watch_streams{kind="KUBERNETES"})") == 1);
    CHECK(Sample(text, R"(orch_site_watch_streams{kind="MARATHON"})") == 1);
    CHECK(Sample(text, R"(orch_site_watch_reconnects_total{kind="KUBERNETES",end="closed"})") == 1);
    CHECK(Sample(text, R"(orch_site_watch_reconnects_total{kind="MARATHON",end="refused"})") == 2);
    CHECK(Sample(text, R"(orch_site_watch_notifications_total{kind="MARATHON"})") == 2);
    CHECK(Sample(text, R"(orch_site_watch_polls_due_total{kind="MARATHON"})") == 2);
    CHECK(Sample(text, R"(orch_site_watch_errors_total{kind="KUBERNETES",error="store"})") == 1);
    CHECK(Sample(text, R"(orch_site_watch_errors_total{kind="KUBERNETES",error="oversized"})") == 3);
}
