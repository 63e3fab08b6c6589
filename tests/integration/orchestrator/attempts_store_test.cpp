// PgDeploymentStore::ListAttempts on a real PostgreSQL: one deployment's attempts only, in seq
// order whatever the insertion order, times to the millisecond, outcomes parsed into the enum,
// a running attempt without finish time or reason.
#include "test_support/test_env.hpp"

#include <common/uuid.hpp>
#include <orchestrator/store/migrations.hpp>
#include <orchestrator/store/pg_deployment_store.hpp>

#include <catch2/catch.hpp>

namespace {

using orch::domain::AttemptOutcome;
using orch::store::PgPool;
using orch::store::PgPoolOptions;

std::string AddDeployment(PgPool& pool) {
    const std::string id = orch::SequentialUuid();
    REQUIRE(pool.Run([&](pqxx::connection& conn) {
        pqxx::work tx(conn);
        tx.exec_params(
            "INSERT INTO deployments (id, created_at, updated_at, status, template) "
            "VALUES ($1::uuid, now(), now(), 'CREATE_IN_PROGRESS', '')",
            id
        );
        tx.commit();
    }));
    return id;
}

void AddAttempt(
    PgPool& pool,
    const std::string& id,
    int seq,
    const std::string& provider,
    const std::string& outcome,
    const std::optional<std::string>& reason,
    bool finished
) {
    REQUIRE(pool.Run([&](pqxx::connection& conn) {
        pqxx::work tx(conn);
        tx.exec_params(
            "INSERT INTO attempts (deployment_id, seq, provider_id, provider_name, service_id, target, "
            "started_at, finished_at, outcome, reason) VALUES ($1::uuid, $2::int, $3::text, $3::text || ' name', "
            "$3::text || '-svc', '{}'::jsonb, "
            "TIMESTAMPTZ '2026-11-27 10:00:00.250+00' + make_interval(secs => $2::int), "
            "CASE WHEN $5::boolean THEN TIMESTAMPTZ '2026-11-27 10:00:00.750+00' + make_interval(secs => $2::int) END, "
            "$4::text, $6::text)",
            id,
            seq,
            provider,
            outcome,
            finished,
            reason
        );
        tx.commit();
    }));
}

}  // namespace

TEST_CASE("the store lists one deployment's attempts in order", "[store][attempts]") {
    orch::test::TestDatabase db;
    PgPool pool{PgPoolOptions{.dsn = db.dsn(), .size = 2}};
    REQUIRE(orch::store::ApplyMigrations(pool));
    orch::store::PgDeploymentStore store(pool);
    const std::string id = AddDeployment(pool);
    const std::string other = AddDeployment(pool);
    // Inserted out of order; another deployment's attempt must not show.
    AddAttempt(pool, id, 1, "SITE-B", "RUNNING", std::nullopt, false);
    AddAttempt(pool, other, 0, "SITE-C", "FAILED", "not this one", true);
    AddAttempt(pool, id, 0, "SITE-A", "FAILED", "Marathon SITE-A failed with HTTP 503", true);

    const auto attempts = store.ListAttempts(id);
    REQUIRE(attempts);
    REQUIRE(attempts->size() == 2);
    const auto& first = (*attempts)[0];
    CHECK(first.seq == 0);
    CHECK(first.provider_id == "SITE-A");
    CHECK(first.provider_name == "SITE-A name");
    CHECK(first.service_id == "SITE-A-svc");
    CHECK(orch::domain::FormatUtcMillis(first.started_at) == "2026-11-27T10:00:00.250Z");
    REQUIRE(first.finished_at);
    CHECK(orch::domain::FormatUtcMillis(*first.finished_at) == "2026-11-27T10:00:00.750Z");
    CHECK(first.outcome == AttemptOutcome::kFailed);
    CHECK(first.reason == "Marathon SITE-A failed with HTTP 503");
    const auto& second = (*attempts)[1];
    CHECK(second.provider_id == "SITE-B");
    CHECK(second.outcome == AttemptOutcome::kRunning);
    CHECK_FALSE(second.finished_at);
    CHECK(second.reason.empty());

    const auto none = store.ListAttempts(orch::SequentialUuid());
    REQUIRE(none);
    CHECK(none->empty());
}
