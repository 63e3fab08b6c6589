// PgDeploymentStore::ListListed (views into the result, the list's fast path) against List
// (domain::Deployment copies): on rows with unusual text and JSON columns, every query shape
// gives the same total and, written by the one deployment view, the same bytes.
#include <orchestrator/api/views.hpp>
#include <orchestrator/auth/principal.hpp>
#include <orchestrator/store/migrations.hpp>
#include <orchestrator/store/pg_deployment_store.hpp>

#include <catch2/catch.hpp>

#include "owner_scope.hpp"
#include "test_support/test_env.hpp"

namespace {

using orch::test::Scope;

using orch::store::ListQuery;

// Odd values in every column the list shows: control characters, non-ASCII, quotes; JSON that
// is {}, null, an array, a string, nested; statuses outside the enum; owners with and without a subject.
constexpr const char* kRows = R"SQL(
INSERT INTO deployments (id, created_at, updated_at, status, status_reason, task, physical_id, callback, user_group,
                         owner_issuer, owner_subject, cloud_provider_name, cloud_provider_endpoint, outputs, template)
SELECT ('00000000-0000-4000-8000-' || lpad(i::text, 12, '0'))::uuid,
       timestamptz '2026-01-01 00:00:00+00' + make_interval(secs => i * 61.123456),
       timestamptz '1969-12-31 23:59:00+00' + make_interval(secs => i * 7.5),
       (ARRAY['CREATE_COMPLETE', 'CREATE_FAILED', 'DELETE_FAILED', 'UPDATE_COMPLETE', 'WEIRD'])[1 + i % 5],
       CASE i % 4 WHEN 0 THEN NULL WHEN 1 THEN 'q " b \ t' || chr(9) || 'n' || chr(10) || chr(1)
                  WHEN 2 THEN 'é 中文 😀 ' || chr(8232) ELSE '' END,
       CASE WHEN i % 4 = 0 THEN 'DEPLOYER' ELSE 'NONE' END,
       CASE WHEN i % 3 = 0 THEN 'phys-' || i END,
       CASE WHEN i % 5 = 0 THEN 'http://cb/?a="1"' END,
       (ARRAY['', 'grp', 'g x'])[1 + i % 3],
       (ARRAY['', 'https://iam/', 'https://other/'])[1 + i % 3],
       CASE WHEN i % 2 = 0 THEN '' ELSE 'user-' || (i % 4) END,
       CASE WHEN i % 2 = 0 THEN 'provider' END,
       (ARRAY[NULL, '{}', '{"b": [1, 2.5, null], "a": "\"x\""}', '[1]', 'null', '"s"'])[1 + i % 6]::jsonb,
       (ARRAY['{}', '{"z": {"y": {}}, "a": "é\\"}', '[]', '"str"', '{"k": ""}'])[1 + i % 5]::jsonb,
       'x'
FROM generate_series(1, 40) AS i
)SQL";

std::string Written(const orch::domain::Deployment& d) { return orch::api::DeploymentViewText(d, "http://o:8080"); }

std::string Written(const orch::domain::ListedDeployment& d) {
    std::string text;
    orch::JsonWriter w(text);
    orch::api::WriteDeploymentView(w, d, "http://o:8080");
    return text;
}

}  // namespace

TEST_CASE("listed views write the bytes of the deployments List reads, for every query shape", "[store][list]") {
    orch::test::TestDatabase db;
    orch::store::PgPool pool{orch::store::PgPoolOptions{.dsn = db.dsn(), .size = 2}};
    REQUIRE(orch::store::ApplyMigrations(pool));
    REQUIRE(pool.Run([](pqxx::connection& conn) {
        pqxx::work tx(conn);
        tx.exec(kRows);
        tx.commit();
    }));
    orch::store::PgDeploymentStore store(pool);
    const std::vector<ListQuery> queries = {
        {.owner = Scope({}), .size = 100},
        {.owner = Scope({}), .page = 2, .size = 7},
        {.owner = Scope({}), .page = 100, .size = 10},  // past the end: the total alone
        {.owner = Scope("https://iam/"), .size = 100},
        {.owner = Scope({}, "https://iam/", "user-1"), .size = 100},
        {.owner = Scope("https://iam/", "https://iam/", "user-1"), .size = 100},
        {.owner = Scope("https://iam/", "https://other/", "user-1"), .size = 100},  // another issuer: nothing
        {.owner = Scope({}), .user_group = "g x", .size = 100},
        {.owner = Scope({}), .excluded_status = {"WEIRD", "CREATE_FAILED"}, .size = 100},
        {.owner = Scope("https://other/"), .user_group = "", .excluded_status = {"DELETE_FAILED"}, .size = 3},
        {.owner = Scope({}), .size = 100, .sort = {{"status", false}, {"updated_at", true}}},
        {.owner = Scope({}), .size = 100, .sort = {{"cloud_provider_name", false}}},
    };
    for (int round = 0; round < 2; ++round) {  // the second round reads the memoised statements
        for (const auto& q : queries) {
            const auto copied = store.List(q);
            const auto listed = store.ListListed(q);
            REQUIRE(copied);
            REQUIRE(listed);
            CHECK(listed->total == copied->total);
            REQUIRE(listed->items.size() == copied->items.size());
            for (std::size_t i = 0; i < copied->items.size(); ++i) {
                CHECK(Written(listed->items[i]) == Written(copied->items[i]));
            }
        }
    }
    CHECK(store.List({.owner = Scope({}), .size = 100})->items.size() == 40);
}
