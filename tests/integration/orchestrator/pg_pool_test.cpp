#include "test_support/test_env.hpp"

#include <orchestrator/store/pg_pool.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>

using orch::ErrorCode;
using orch::store::PgPool;
using orch::store::PgPoolOptions;

TEST_CASE("the pool runs queries on a real PostgreSQL", "[store][pg]") {
    orch::test::TestDatabase db;
    PgPool pool(PgPoolOptions{.dsn = db.dsn(), .size = 2});
    auto version = pool.Run([](pqxx::connection& c) {
        pqxx::nontransaction tx(c);
        return tx.exec1("SHOW server_version_num")[0].as<int>();
    });
    REQUIRE(version);
    CHECK(*version >= 150000);
    auto tz = pool.Run([](pqxx::connection& c) {
        pqxx::nontransaction tx(c);
        return tx.exec1("SHOW TimeZone")[0].as<std::string>();
    });
    REQUIRE(tz);
    CHECK(*tz == "UTC");
}

TEST_CASE("an unreachable database is kUnavailable, quickly", "[store][pg]") {
    // Port 1 on loopback refuses at once; the pool must not throw or hang.
    PgPool pool(PgPoolOptions{.dsn = "postgresql://postgres@127.0.0.1:1/postgres", .size = 1});
    const auto start = std::chrono::steady_clock::now();
    auto r = pool.Run([](pqxx::connection&) { return 1; });
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::kUnavailable);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
}

TEST_CASE("SQL errors are reported, and the connection stays usable", "[store][pg]") {
    orch::test::TestDatabase db;
    PgPool pool(PgPoolOptions{.dsn = db.dsn(), .size = 1});
    auto bad = pool.Run([](pqxx::connection& c) {
        pqxx::work tx(c);
        tx.exec0("SELECT 1 / 0");
    });
    REQUIRE_FALSE(bad);
    CHECK(bad.error().code == ErrorCode::kInternal);
    // A missing table means migrations are not applied yet (fresh database): retry later, 503.
    auto not_ready = pool.Run([](pqxx::connection& c) {
        pqxx::work tx(c);
        tx.exec0("SELECT * FROM no_such_table");
    });
    REQUIRE_FALSE(not_ready);
    CHECK(not_ready.error().code == ErrorCode::kUnavailable);
    auto good = pool.Run([](pqxx::connection& c) {
        pqxx::nontransaction tx(c);
        return tx.exec1("SELECT 41 + 1")[0].as<int>();
    });
    REQUIRE(good);
    CHECK(*good == 42);
}

TEST_CASE("a killed backend connection is replaced on the next call", "[store][pg]") {
    orch::test::TestDatabase db;
    PgPool pool(PgPoolOptions{.dsn = db.dsn(), .size = 1});
    auto pid = pool.Run([](pqxx::connection& c) { return c.backendpid(); });
    REQUIRE(pid);
    {
        pqxx::connection admin(db.dsn());
        pqxx::nontransaction tx(admin);
        tx.exec_params("SELECT pg_terminate_backend($1)", *pid);
        // pg_terminate_backend only signals the backend: until it has exited, the pool's next
        // query can still succeed (seen once under ASan load). Wait, bounded, for it to be gone.
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (tx.exec_params1("SELECT count(*) FROM pg_stat_activity WHERE pid = $1", *pid)[0].as<int>() != 0 &&
               std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    }
    auto first = pool.Run([](pqxx::connection& c) {
        pqxx::nontransaction tx(c);
        return tx.exec1("SELECT 1")[0].as<int>();
    });
    REQUIRE_FALSE(first);
    CHECK(first.error().code == ErrorCode::kUnavailable);
    auto second = pool.Run([](pqxx::connection& c) { return c.backendpid(); });
    REQUIRE(second);
    CHECK(*second != *pid);
}

TEST_CASE("the pool bounds concurrency and times out waiters", "[store][pg]") {
    orch::test::TestDatabase db;
    PgPool pool(PgPoolOptions{.dsn = db.dsn(), .size = 1, .acquire_timeout = std::chrono::milliseconds(200)});
    std::atomic<bool> holding{false};
    std::thread holder([&] {
        (void)pool.Run([&](pqxx::connection& c) {
            holding = true;
            pqxx::nontransaction tx(c);
            tx.exec0("SELECT pg_sleep(1)");
        });
    });
    while (!holding) {
        std::this_thread::yield();
    }
    auto waited = pool.Run([](pqxx::connection&) { return 1; });
    holder.join();
    REQUIRE_FALSE(waited);
    CHECK(waited.error().code == ErrorCode::kUnavailable);
    CHECK(pool.Stats().in_use == 0);
}

TEST_CASE("deadlocks and serialization failures are retried, then a retryable conflict", "[store][pg]") {
    orch::test::TestDatabase db;
    PgPool pool(PgPoolOptions{.dsn = db.dsn(), .size = 2});
    // PostgreSQL raising the SQLSTATE itself: libpqxx throws what it throws for a real deadlock.
    const auto raise = [](pqxx::connection& c, const char* state) {
        pqxx::work tx(c);
        tx.exec0(std::string("DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '") + state + "'; END $$");
    };
    int calls = 0;
    auto recovered = pool.Run([&](pqxx::connection& c) {
        ++calls;
        if (calls == 1) {
            raise(c, "40P01");
        }
        if (calls == 2) {
            raise(c, "40001");
        }
        return calls;
    });
    REQUIRE(recovered);
    CHECK(*recovered == 3);

    calls = 0;
    auto persistent = pool.Run([&](pqxx::connection& c) {
        ++calls;
        raise(c, "40P01");
    });
    REQUIRE_FALSE(persistent);
    CHECK(persistent.error().code == ErrorCode::kConflict);  // 409 with the contract body, not 500
    CHECK(calls == PgPool::kConflictAttempts);
}
