// A schedule event's deployment gets the default lease (docs/lifecycle.md "Leases"): it is made
// while nobody watches, so without one it would hold its resources until someone deletes it.
#include "test_support/fakes.hpp"

#include <orchestrator/schedule/schedule_event_service.hpp>

#include <catch2/catch.hpp>

namespace {

using orch::Result;
using orch::Status;
using std::chrono::hours;

// One RUNNING schedule matching every file; the events' deployments are kept for the test.
class OneSchedule final : public orch::store::ScheduleStore {
   public:
    orch::domain::Schedule schedule;
    std::vector<orch::store::NewDeployment> created;

    OneSchedule() {
        schedule.id = "0f9d1f5e-0000-4000-8000-000000000001";
        schedule.file_expression = ".*";  // a regex over "scope:name"
        schedule.owner = orch::domain::Owner{"https://iam.example/", "alice"};
        schedule.template_text = "tosca_definitions_version: x";
    }
    Status Create(const orch::domain::Schedule&) override { return orch::Ok(); }
    Result<std::optional<orch::domain::Schedule>> Get(const std::string&) override {
        return std::optional<orch::domain::Schedule>(schedule);
    }
    Result<orch::store::Page<orch::domain::Schedule>> List(const orch::store::ScheduleQuery&) override {
        return orch::store::Page<orch::domain::Schedule>{};
    }
    Result<std::vector<orch::store::RunningSchedule>> ListRunning(
        const orch::auth::OwnerFilter&, const std::string& after, int
    ) override {
        if (!after.empty()) {
            return std::vector<orch::store::RunningSchedule>{};
        }
        return std::vector<orch::store::RunningSchedule>{{schedule.id, schedule.file_expression}};
    }
    Result<orch::store::Page<orch::domain::ScheduleEvent>>
    ListEvents(const std::string&, int, int, const std::vector<orch::store::SortKey>&) override {
        return orch::store::Page<orch::domain::ScheduleEvent>{};
    }
    Result<bool> CreateEvent(const orch::domain::ScheduleEvent&, const orch::store::NewDeployment& d) override {
        created.push_back(d);
        return true;
    }
};

class GroupTerms final : public orch::workflow::LeasePolicySource {
   public:
    orch::workflow::LeasePolicy policy;
    std::vector<std::string> groups;
    Result<orch::workflow::LeasePolicy> ForGroup(const std::string& group, const std::string&, const std::string&)
        override {
        groups.push_back(group);
        return policy;
    }
};

orch::auth::OwnerFilter Everyone() {
    orch::auth::Principal admin;
    admin.issuer = "https://iam.example/";
    admin.admin = true;
    return orch::auth::OwnerFilter::VisibleTo(admin);
}

}  // namespace

TEST_CASE("a schedule event's deployment gets the default lease and its action", "[schedules][leases]") {
    orch::ManualClock clock;
    OneSchedule schedules;
    orch::test::FakeTemplateService templates{orch::test::SimpleSpec()};
    GroupTerms terms;
    terms.policy.default_duration = hours(48);
    terms.policy.action = orch::domain::LeaseAction::kStop;
    orch::schedule::ScheduleEventService service(schedules, templates, nullptr, clock, {.leases = &terms});

    const auto outcome = service.OnFileAvailable({"scope", "file-1"}, Everyone());
    REQUIRE(outcome);
    REQUIRE(outcome->created.size() == 1);
    REQUIRE(schedules.created.size() == 1);
    const auto& d = schedules.created[0].deployment;
    REQUIRE(d.expires_at.has_value());
    CHECK(*d.expires_at == clock.now() + hours(48));
    CHECK(d.lease_action == orch::domain::LeaseAction::kStop);
    CHECK(terms.groups == std::vector<std::string>{""});  // no group: the default group's terms

    terms.policy.default_duration.reset();  // no default lease anywhere: none, as for a create
    REQUIRE(service.OnFileAvailable({"scope", "file-2"}, Everyone()));
    REQUIRE(schedules.created.size() == 2);
    CHECK_FALSE(schedules.created[1].deployment.expires_at.has_value());
}

TEST_CASE("a schedule's own lease is its events' deployments' lease, capped by the maximum", "[schedules][leases]") {
    orch::ManualClock clock;
    OneSchedule schedules;
    schedules.schedule.deployment_expires_after_mins = 90;
    orch::test::FakeTemplateService templates{orch::test::SimpleSpec()};
    GroupTerms terms;
    terms.policy.default_duration = hours(48);
    terms.policy.action = orch::domain::LeaseAction::kStop;
    orch::schedule::ScheduleEventService service(schedules, templates, nullptr, clock, {.leases = &terms});

    REQUIRE(service.OnFileAvailable({"scope", "file-1"}, Everyone()));
    REQUIRE(schedules.created.size() == 1);
    const auto& d = schedules.created[0].deployment;
    CHECK(d.expires_at == std::optional(clock.now() + std::chrono::minutes(90)));  // not the 48 h default
    CHECK(d.lease_action == orch::domain::LeaseAction::kStop);

    terms.policy.maximum = hours(1);  // lowered since the schedule was made: the maximum it is
    REQUIRE(service.OnFileAvailable({"scope", "file-2"}, Everyone()));
    REQUIRE(schedules.created.size() == 2);
    CHECK(schedules.created[1].deployment.expires_at == std::optional(clock.now() + hours(1)));
}
