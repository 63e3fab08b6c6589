// PgScheduleStore on a real PostgreSQL: create/get/list with the owner filters and paging,
// RUNNING keyset pages, events once per file with their deployment created in the same transaction.
#include "owner_scope.hpp"
#include "test_support/test_env.hpp"

#include <common/uuid.hpp>
#include <orchestrator/auth/principal.hpp>
#include <orchestrator/store/migrations.hpp>
#include <orchestrator/store/pg_deployment_store.hpp>
#include <orchestrator/store/pg_schedule_store.hpp>

#include <catch2/catch.hpp>

#include <set>
#include <thread>

namespace {

using orch::test::Scope;

using orch::store::PgPool;
using orch::store::PgPoolOptions;

struct Fixture {
    orch::test::TestDatabase db;
    PgPool pool{PgPoolOptions{.dsn = db.dsn(), .size = 2}};
    orch::store::PgScheduleStore schedules{pool};
    orch::store::PgDeploymentStore deployments{pool};

    Fixture() { REQUIRE(orch::store::ApplyMigrations(pool)); }

    orch::domain::Schedule Add(const std::string& issuer, const std::string& subject, const std::string& files = ".*") {
        orch::domain::Schedule s;
        s.id = orch::SequentialUuid();
        s.created_at = std::chrono::system_clock::now();
        s.updated_at = s.created_at;
        s.file_expression = files;
        s.replication_expression = "RSE_" + subject;
        s.number_of_replicas = 2;
        if (!issuer.empty()) {
            s.owner = orch::domain::Owner{issuer, subject};
        }
        s.template_text = "tosca_definitions_version: tosca_simple_yaml_1_0\n";
        s.parameters = {{"n", 1}};
        REQUIRE(schedules.Create(s));
        return s;
    }

    orch::store::NewDeployment Deployment(const orch::domain::Schedule& s) {
        orch::store::NewDeployment n;
        n.deployment.id = orch::SequentialUuid();
        n.deployment.created_at = std::chrono::system_clock::now();
        n.deployment.updated_at = n.deployment.created_at;
        n.deployment.owner = s.owner;
        n.deployment.template_text = s.template_text;
        n.deployment.parameters = s.parameters;
        n.deployment.kind = orch::tosca::DeploymentKind::kMarathon;
        return n;
    }

    orch::domain::ScheduleEvent Event(const orch::domain::Schedule& s, const std::string& name) {
        orch::domain::ScheduleEvent e;
        e.id = orch::SequentialUuid();
        e.schedule_id = s.id;
        e.created_at = std::chrono::system_clock::now();
        e.updated_at = e.created_at;
        e.scope = "user.alice";
        e.name = name;
        return e;
    }
};

}  // namespace

TEST_CASE("a stored schedule reads back field for field", "[store][schedules]") {
    Fixture f;
    const auto s = f.Add("https://iam/", "alice", "user\\.alice:.*\\.root");
    const auto got = f.schedules.Get(s.id);
    REQUIRE(got);
    REQUIRE(got->has_value());
    const auto& g = **got;
    CHECK(g.id == s.id);
    CHECK(g.status == "RUNNING");
    CHECK(g.file_expression == "user\\.alice:.*\\.root");
    CHECK(g.replication_expression == "RSE_alice");
    CHECK(g.number_of_replicas == 2);
    CHECK(g.callback.empty());
    REQUIRE(g.owner);
    CHECK(g.owner->issuer == "https://iam/");
    CHECK(g.owner->subject == "alice");
    CHECK(g.template_text == s.template_text);
    CHECK(g.parameters == s.parameters);
    CHECK(orch::domain::FormatContractTime(g.created_at) == orch::domain::FormatContractTime(s.created_at));
    CHECK_FALSE(g.deployment_expires_after_mins.has_value());
    const auto missing = f.schedules.Get(orch::SequentialUuid());
    REQUIRE(missing);
    CHECK_FALSE(missing->has_value());
}

TEST_CASE("a schedule's own lease for its deployments reads back", "[store][schedules][leases]") {
    Fixture f;
    auto s = f.Add("https://iam/", "alice", ".*");
    s.id = orch::SequentialUuid();
    s.deployment_expires_after_mins = 90;
    REQUIRE(f.schedules.Create(s));
    const auto got = f.schedules.Get(s.id);
    REQUIRE(got);
    REQUIRE(got->has_value());
    CHECK((*got)->deployment_expires_after_mins == std::optional<int>(90));
}

TEST_CASE("schedule lists filter by owner and issuer and page newest first", "[store][schedules]") {
    Fixture f;
    std::vector<std::string> alice;
    for (int i = 0; i < 5; ++i) {
        alice.push_back(f.Add("https://iam/", "alice").id);
    }
    f.Add("https://iam/", "bob");
    f.Add("https://other/", "alice");
    f.Add("", "");  // created while auth was disabled: no owner

    orch::store::ScheduleQuery own{.owner = Scope("https://iam/", "https://iam/", "alice"), .size = 2};
    const auto first = f.schedules.List(own);
    REQUIRE(first);
    CHECK(first->total == 5);
    REQUIRE(first->items.size() == 2);
    CHECK(first->items[0].id == alice[4]);
    CHECK(first->items[1].id == alice[3]);
    own.page = 2;
    const auto last = f.schedules.List(own);
    REQUIRE(last);
    REQUIRE(last->items.size() == 1);
    CHECK(last->items[0].id == alice[0]);

    const auto with_unowned = f.schedules.List({.owner = Scope("https://iam/"), .size = 100});
    REQUIRE(with_unowned);
    CHECK(with_unowned->total == 7);  // an admin of iam: its six and the unowned one
    const auto all = f.schedules.List({.owner = Scope({}), .size = 100});
    REQUIRE(all);
    CHECK(all->total == 8);
    const auto twin = f.schedules.List({.owner = Scope("https://iam/", "https://other/", "alice"), .size = 100});
    REQUIRE(twin);
    CHECK(twin->total == 0);  // alice@other is not iam's to list, whoever of iam asks

    const auto oldest_first = f.schedules.List(
        {.owner = Scope("https://iam/", "https://iam/", "alice"), .size = 1, .sort = {{"created_at", false}}}
    );
    REQUIRE(oldest_first);
    CHECK(oldest_first->items.at(0).id == alice[0]);
    const auto bad_sort = f.schedules.List({.owner = Scope({}), .sort = {{"cloud_provider_name", true}}});
    REQUIRE_FALSE(bad_sort);
    CHECK(bad_sort.error().code == orch::ErrorCode::kInvalidArgument);
}

TEST_CASE("running schedules come in keyset pages that cover each once", "[store][schedules]") {
    Fixture f;
    std::set<std::string> ids;
    for (int i = 0; i < 7; ++i) {
        ids.insert(f.Add("https://iam/", "alice", "expr" + std::to_string(i)).id);
    }
    std::set<std::string> seen;
    std::string after;
    int pages = 0;
    while (true) {
        const auto page = f.schedules.ListRunning(Scope({}), after, 3);
        REQUIRE(page);
        ++pages;
        for (const auto& s : *page) {
            CHECK(seen.insert(s.id).second);
            CHECK(s.file_expression.rfind("expr", 0) == 0);
        }
        if (page->size() < 3) {
            break;
        }
        after = page->back().id;
    }
    CHECK(seen == ids);
    CHECK(pages == 3);
}

TEST_CASE("running schedules are scanned within the notifier's issuer only", "[store][schedules][security]") {
    Fixture f;
    const auto own = f.Add("https://iam/", "alice").id;
    const auto unowned = f.Add("", "").id;
    f.Add("https://other/", "alice");
    std::set<std::string> seen;
    const auto page = f.schedules.ListRunning(Scope("https://iam/"), "", 100);
    REQUIRE(page);
    for (const auto& s : *page) {
        seen.insert(s.id);
    }
    CHECK(seen == std::set<std::string>{own, unowned});
    const auto everything = f.schedules.ListRunning(Scope({}), "", 100);
    REQUIRE(everything);
    CHECK(everything->size() == 3);  // auth disabled: the local user's notifications see all
}

TEST_CASE("an event is stored once per file, with its deployment, and listed with it", "[store][schedules]") {
    Fixture f;
    const auto s = f.Add("https://iam/", "alice");
    const auto other = f.Add("https://iam/", "alice");
    const auto first = f.Deployment(s);
    const auto created = f.schedules.CreateEvent(f.Event(s, "file1.root"), first);
    REQUIRE(created);
    CHECK(*created);

    const auto again = f.Deployment(s);
    const auto duplicate = f.schedules.CreateEvent(f.Event(s, "file1.root"), again);
    REQUIRE(duplicate);
    CHECK_FALSE(*duplicate);
    const auto rolled_back = f.deployments.Get(again.deployment.id);
    REQUIRE(rolled_back);
    CHECK_FALSE(rolled_back->has_value());  // the losing deployment was not kept

    REQUIRE(f.schedules.CreateEvent(f.Event(other, "file1.root"), f.Deployment(other)).value());  // other schedule
    REQUIRE(f.schedules.CreateEvent(f.Event(s, "file2.root"), f.Deployment(s)).value());

    const auto events = f.schedules.ListEvents(s.id, 0, 10, {});
    REQUIRE(events);
    CHECK(events->total == 2);
    REQUIRE(events->items.size() == 2);
    CHECK(events->items[0].name == "file2.root");  // newest first
    const auto& oldest = events->items[1];
    CHECK(oldest.name == "file1.root");
    CHECK(oldest.scope == "user.alice");
    CHECK(oldest.replication_status.empty());
    REQUIRE(oldest.deployment);
    CHECK(oldest.deployment->id == first.deployment.id);
    CHECK(oldest.deployment->status == orch::domain::Status::kCreateInProgress);
    REQUIRE(oldest.deployment->owner);
    CHECK(oldest.deployment->owner->subject == "alice");

    const auto stored = f.deployments.Get(first.deployment.id);
    REQUIRE(stored);
    CHECK(stored->has_value());
    const auto paged = f.schedules.ListEvents(s.id, 1, 1, {});
    REQUIRE(paged);
    REQUIRE(paged->items.size() == 1);
    CHECK(paged->items[0].name == "file1.root");
}

TEST_CASE("concurrent notifications of one file create exactly one event", "[store][schedules]") {
    Fixture f;
    const auto s = f.Add("https://iam/", "alice");
    constexpr int kWriters = 4;
    std::vector<orch::store::NewDeployment> candidates;
    std::vector<orch::domain::ScheduleEvent> events;
    for (int i = 0; i < kWriters; ++i) {
        candidates.push_back(f.Deployment(s));
        events.push_back(f.Event(s, "same.root"));
    }
    PgPool pool(PgPoolOptions{.dsn = f.db.dsn(), .size = kWriters});
    orch::store::PgScheduleStore store(pool);
    std::vector<orch::Result<bool>> results(kWriters, false);
    std::vector<std::thread> writers;
    for (int i = 0; i < kWriters; ++i) {
        writers.emplace_back([&, i] { results[i] = store.CreateEvent(events[i], candidates[i]); });
    }
    for (auto& w : writers) {
        w.join();
    }
    int won = 0;
    for (const auto& r : results) {
        REQUIRE(r);
        won += *r ? 1 : 0;
    }
    CHECK(won == 1);
    const auto listed = f.schedules.ListEvents(s.id, 0, 10, {});
    REQUIRE(listed);
    CHECK(listed->total == 1);
    int kept = 0;
    for (const auto& c : candidates) {
        kept += f.deployments.Get(c.deployment.id).value().has_value() ? 1 : 0;
    }
    CHECK(kept == 1);  // the losers' deployments were rolled back with their events
}
