// PgWorkflowStore::PurgeDeleted, the housekeeping behind deployments.deleted_retention: only
// DELETE_COMPLETE records older than the retention and no longer referenced by a job go, with
// their resources and attempts, at most `limit` per call, and the list counters follow.
#include "test_support/test_env.hpp"

#include <orchestrator/store/migrations.hpp>
#include <orchestrator/store/pg_workflow_store.hpp>

#include <catch2/catch.hpp>

namespace {

// a: purgeable (with a resource and an attempt); b: as old but a job still refers to it (its
// callback, say); c: deleted a minute ago; d: old but CREATE_FAILED; e, f: purgeable.
constexpr const char* kRows = R"SQL(
INSERT INTO deployments (id, created_at, updated_at, status, template)
VALUES ('00000000-0000-4000-8000-00000000000a', now() - interval '3 hours', now() - interval '2 hours', 'DELETE_COMPLETE', 't'),
       ('00000000-0000-4000-8000-00000000000b', now() - interval '3 hours', now() - interval '2 hours', 'DELETE_COMPLETE', 't'),
       ('00000000-0000-4000-8000-00000000000c', now() - interval '3 hours', now() - interval '1 minute', 'DELETE_COMPLETE', 't'),
       ('00000000-0000-4000-8000-00000000000d', now() - interval '3 hours', now() - interval '2 hours', 'CREATE_FAILED', 't'),
       ('00000000-0000-4000-8000-00000000000e', now() - interval '3 hours', now() - interval '2 hours', 'DELETE_COMPLETE', 't'),
       ('00000000-0000-4000-8000-00000000000f', now() - interval '3 hours', now() - interval '2 hours', 'DELETE_COMPLETE', 't');
INSERT INTO resources (id, deployment_id, created_at, updated_at, state, node_type, node_name)
VALUES ('10000000-0000-4000-8000-00000000000a', '00000000-0000-4000-8000-00000000000a', now(), now(), 'DELETED', 'n', 'n');
INSERT INTO attempts (deployment_id, seq, provider_id, provider_name, service_id, target)
VALUES ('00000000-0000-4000-8000-00000000000a', 1, 'p', 'p', 's', '{}');
INSERT INTO jobs (deployment_id, kind, workflow) VALUES ('00000000-0000-4000-8000-00000000000b', 'callback', false);
)SQL";

std::int64_t Count(orch::store::PgPool& pool, const std::string& sql) {
    auto n = pool.Run([&](pqxx::connection& conn) {
        pqxx::read_transaction tx(conn);
        return tx.exec1(sql)[0].as<std::int64_t>();
    });
    REQUIRE(n);
    return *n;
}

}  // namespace

TEST_CASE("purging deleted deployments keeps recent, referenced and live ones", "[store][purge]") {
    orch::test::TestDatabase db;
    orch::store::PgPool pool{orch::store::PgPoolOptions{.dsn = db.dsn(), .size = 2}};
    REQUIRE(orch::store::ApplyMigrations(pool));
    REQUIRE(pool.Run([](pqxx::connection& conn) {
        pqxx::work tx(conn);
        tx.exec(kRows);
        tx.commit();
    }));
    orch::store::PgWorkflowStore store(pool);
    const auto retention = std::chrono::hours(1);

    const auto first = store.PurgeDeleted(retention, 2);  // a, e, f are due: two per call
    REQUIRE(first);
    CHECK(*first == 2);
    const auto second = store.PurgeDeleted(retention, 2);
    REQUIRE(second);
    CHECK(*second == 1);
    const auto third = store.PurgeDeleted(retention, 2);
    REQUIRE(third);
    CHECK(*third == 0);

    CHECK(Count(pool, "SELECT count(*) FROM deployments WHERE right(id::text, 1) IN ('a', 'e', 'f')") == 0);
    CHECK(Count(pool, "SELECT count(*) FROM deployments WHERE right(id::text, 1) IN ('b', 'c', 'd')") == 3);
    CHECK(Count(pool, "SELECT count(*) FROM resources") == 0);
    CHECK(Count(pool, "SELECT count(*) FROM attempts") == 0);
    // The list totals come from the counters: they must still match the rows.
    CHECK(Count(pool, "SELECT coalesce(sum(n), 0)::bigint FROM deployment_counts") == 3);

    // Once the job is done (and the retention is shorter), the others go too.
    REQUIRE(pool.Run([](pqxx::connection& conn) {
        pqxx::work tx(conn);
        tx.exec("DELETE FROM jobs");
        tx.commit();
    }));
    const auto rest = store.PurgeDeleted(std::chrono::seconds(0), 10);
    REQUIRE(rest);
    CHECK(*rest == 2);
    CHECK(Count(pool, "SELECT count(*) FROM deployments") == 1);
}
