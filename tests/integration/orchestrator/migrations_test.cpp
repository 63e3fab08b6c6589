#include "test_support/test_env.hpp"

#include <orchestrator/store/database_supervisor.hpp>
#include <orchestrator/store/migrations.hpp>

#include <catch2/catch.hpp>

#include <thread>

using orch::store::PgPool;
using orch::store::PgPoolOptions;

TEST_CASE("migrations apply once even when two instances start together", "[store][migrations]") {
    orch::test::TestDatabase db;
    PgPool a(PgPoolOptions{.dsn = db.dsn(), .size = 1});
    PgPool b(PgPoolOptions{.dsn = db.dsn(), .size = 1});
    orch::Result<int> ra = 0;
    orch::Result<int> rb = 0;
    std::thread ta([&] { ra = orch::store::ApplyMigrations(a); });
    std::thread tb([&] { rb = orch::store::ApplyMigrations(b); });
    ta.join();
    tb.join();
    REQUIRE(ra);
    REQUIRE(rb);
    const int total = static_cast<int>(orch::store::EmbeddedMigrations().size());
    CHECK(total > 0);
    CHECK(*ra + *rb == total);  // one of them applied everything, the other nothing
    auto count = a.Run([](pqxx::connection& c) {
        pqxx::nontransaction tx(c);
        return tx.exec1("SELECT count(*) FROM schema_migrations")[0].as<int>();
    });
    REQUIRE(count);
    CHECK(*count == total);
    CHECK(*orch::store::ApplyMigrations(a) == 0);
}

TEST_CASE("the supervisor reports readiness only with a reachable database", "[store][migrations]") {
    orch::test::TestDatabase db;
    PgPool good(PgPoolOptions{.dsn = db.dsn(), .size = 1});
    orch::store::DatabaseSupervisor ready(good);
    ready.Start();
    REQUIRE(ready.WaitReady(std::chrono::seconds(10)));
    CHECK(ready.CheckReady().has_value());

    PgPool down(PgPoolOptions{.dsn = "postgresql://postgres@127.0.0.1:1/postgres", .size = 1});
    orch::store::DatabaseSupervisor not_ready(down);
    not_ready.Start();
    CHECK_FALSE(not_ready.WaitReady(std::chrono::milliseconds(300)));
    auto status = not_ready.CheckReady();
    REQUIRE_FALSE(status);
    CHECK(status.error().code == orch::ErrorCode::kUnavailable);
}
