// PgSiteHistory on a real PostgreSQL: the batched read (one query for many services) gives each
// service exactly what the per-service read gives, ids with quotes and backslashes included.
#include "test_support/test_env.hpp"

#include <common/uuid.hpp>
#include <orchestrator/store/migrations.hpp>
#include <orchestrator/store/pg_side_stores.hpp>

#include <catch2/catch.hpp>

namespace {

using orch::store::PgPool;
using orch::store::PgPoolOptions;

// One deployment with `outcomes` attempts on `service` (seq 1..n, a minute apart; 'S' = succeeded,
// 'F' = failed, 'U' = failed by the request (a user error: cause REQUEST), 'R' = still running).
void AddAttempts(PgPool& pool, const std::string& service, const std::string& outcomes) {
    const std::string id = orch::SequentialUuid();
    auto done = pool.Run([&](pqxx::connection& conn) {
        pqxx::work tx(conn);
        tx.exec_params(
            "INSERT INTO deployments (id, created_at, updated_at, status, template) "
            "VALUES ($1::uuid, now(), now(), 'CREATE_IN_PROGRESS', '')",
            id
        );
        for (std::size_t i = 0; i < outcomes.size(); ++i) {
            const char o = outcomes[i];
            tx.exec_params(
                "INSERT INTO attempts (deployment_id, seq, provider_id, provider_name, service_id, target, "
                "finished_at, outcome, reason, cause) VALUES ($1::uuid, $2, 'P', 'P', $3, '{}'::jsonb, "
                "CASE WHEN $4::text = 'R' THEN NULL ELSE now() - make_interval(mins => 100 - $2::int) END, "
                "CASE $4::text WHEN 'S' THEN 'SUCCEEDED' WHEN 'F' THEN 'FAILED' WHEN 'U' THEN 'FAILED' "
                "ELSE 'RUNNING' END, $5, CASE $4::text WHEN 'U' THEN 'REQUEST' ELSE 'SITE' END)",
                id,
                static_cast<int>(i + 1),
                service,
                std::string(1, o),
                "reason " + std::to_string(i + 1)
            );
        }
        tx.commit();
    });
    REQUIRE(done);
}

}  // namespace

TEST_CASE("site history: one batched read equals the per-service reads", "[store][placement]") {
    orch::test::TestDatabase db;
    PgPool pool{PgPoolOptions{.dsn = db.dsn(), .size = 2}};
    REQUIRE(orch::store::ApplyMigrations(pool));
    orch::store::PgSiteHistory history(pool);
    const std::vector<std::string> services = {"A-nova", "B \"quoted\" \\ odd,{id}", "C-none", "D-running"};
    AddAttempts(pool, services[0], "FFSFSFF");
    AddAttempts(pool, services[1], "SF");
    AddAttempts(pool, services[3], "R");

    const std::vector<std::string_view> ids(services.begin(), services.end());
    const auto batched = history.RecentAttemptsOf(ids, 3);
    CHECK(batched.size() == 2);  // C has no attempts, D's is still running
    for (const auto& service : services) {
        INFO(service);
        const auto single = history.RecentAttempts(service, 3);
        const auto it = batched.find(service);
        REQUIRE((it == batched.end() ? 0 : it->second.size()) == single.size());
        for (std::size_t i = 0; i < single.size(); ++i) {
            CHECK(it->second[i].deployment_id == single[i].deployment_id);
            CHECK(it->second[i].success == single[i].success);
            CHECK(it->second[i].error == single[i].error);
            CHECK(it->second[i].at == single[i].at);
        }
    }
    // Newest first, at most the limit.
    const auto& a = batched.at("A-nova");
    REQUIRE(a.size() == 3);
    CHECK(a[0].error == "reason 7");
    CHECK_FALSE(a[0].success);
    CHECK(a[2].error == "reason 5");
    CHECK(a[2].success);
}

// Issue 25: failures the request caused (a template the site cannot run, a user error it reports)
// are not the site's: they neither lower its success rate nor count toward its circuit breaker.
TEST_CASE("site history: failures caused by the request are not the site's", "[store][placement][health]") {
    orch::test::TestDatabase db;
    PgPool pool{PgPoolOptions{.dsn = db.dsn(), .size = 2}};
    REQUIRE(orch::store::ApplyMigrations(pool));
    orch::store::PgSiteHistory history(pool);
    AddAttempts(pool, "OPENSTACK", "SUUUF");  // newest last: 4 failures, 3 of them the users'

    const auto single = history.RecentAttempts("OPENSTACK", 10);
    REQUIRE(single.size() == 2);
    CHECK(single[0].error == "reason 5");
    CHECK_FALSE(single[0].success);
    CHECK(single[1].success);
    const std::vector<std::string_view> ids = {"OPENSTACK"};
    const auto batched = history.RecentAttemptsOf(ids, 10);
    REQUIRE(batched.at("OPENSTACK").size() == 2);
    CHECK(batched.at("OPENSTACK")[0].error == "reason 5");
}
