// PgDeploymentStore::List (the one deployment list path) on rows with unusual text and JSON
// columns: for every query shape (filters, owners, sorts, inline and parameterised pages, past
// the end) the rows, their order, their fields and the total are the ones the test data implies.
#include "owner_scope.hpp"
#include "test_support/test_env.hpp"

#include <orchestrator/domain/deployment.hpp>
#include <orchestrator/store/migrations.hpp>
#include <orchestrator/store/pg_deployment_store.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

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

constexpr int kRowCount = 40;
const std::vector<std::string> kStatuses = {
    "CREATE_COMPLETE", "CREATE_FAILED", "DELETE_FAILED", "UPDATE_COMPLETE", "WEIRD"};

// Row i's values, read off kRows' expressions.
std::string IdOf(int i) {
    char id[40];
    std::snprintf(id, sizeof id, "00000000-0000-4000-8000-%012d", i);
    return id;
}
const std::string& StatusOf(int i) {
    return kStatuses[static_cast<std::size_t>(i % 5)];
}
std::string GroupOf(int i) {
    return std::vector<std::string>{"", "grp", "g x"}[static_cast<std::size_t>(i % 3)];
}
std::string IssuerOf(int i) {
    return std::vector<std::string>{"", "https://iam/", "https://other/"}[static_cast<std::size_t>(i % 3)];
}
std::string SubjectOf(int i) {
    return i % 2 == 0 ? "" : "user-" + std::to_string(i % 4);
}
std::string ProviderOf(int i) {
    return i % 2 == 0 ? "provider" : "";
}

std::int64_t Micros(orch::domain::TimePoint t) {
    return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
}

// Every field the list reads, against row i's values.
void CheckFields(const orch::domain::Deployment& d, int i) {
    using orch::Json;
    INFO("row " << i);
    CHECK(d.id == IdOf(i));
    // 2026-01-01 + i × 61.123456 s, which PostgreSQL's make_interval takes as a double (±1 µs).
    CHECK(std::llabs(Micros(d.created_at) - (1767225600000000 + std::int64_t{i} * 61123456)) <= 1);
    CHECK(Micros(d.updated_at) == -60000000 + std::int64_t{i} * 7500000);  // 1969-12-31 23:59 + i × 7.5 s
    CHECK(d.status == orch::domain::ParseStatus(StatusOf(i)).value_or(orch::domain::Status::kUnknown));
    const std::vector<std::string> reasons = {"", "q \" b \\ t\tn\n\x01", "é 中文 😀 \xE2\x80\xA8", ""};
    CHECK(d.status_reason == reasons[static_cast<std::size_t>(i % 4)]);
    CHECK(d.task == (i % 4 == 0 ? orch::domain::Task::kDeployer : orch::domain::Task::kNone));
    CHECK(d.physical_id == (i % 3 == 0 ? "phys-" + std::to_string(i) : ""));
    CHECK(d.callback == (i % 5 == 0 ? "http://cb/?a=\"1\"" : ""));
    CHECK(d.user_group == GroupOf(i));
    if (IssuerOf(i).empty()) {
        CHECK_FALSE(d.owner.has_value());
    } else {
        REQUIRE(d.owner.has_value());
        CHECK(d.owner->issuer == IssuerOf(i));
        CHECK(d.owner->subject == SubjectOf(i));
    }
    CHECK(d.cloud_provider_name == ProviderOf(i));
    const std::vector<std::string> endpoints = {
        "", "{}", R"({"b": [1, 2.5, null], "a": "\"x\""})", "[1]", "null", R"("s")"};
    const std::string& endpoint = endpoints[static_cast<std::size_t>(i % 6)];
    CHECK(d.cloud_provider_endpoint == (endpoint.empty() ? Json() : Json::parse(endpoint)));
    const std::vector<std::string> outputs = {
        "{}", R"({"z": {"y": {}}, "a": "é\\"})", "[]", R"("str")", R"({"k": ""})"};
    CHECK(d.outputs == Json::parse(outputs[static_cast<std::size_t>(i % 5)]));
}

// A query and what it must list: which rows (a predicate on i) in which order (a strict
// "comes before" on i; every order ends with id DESC, i.e. i descending).
struct Expected {
    ListQuery query;
    std::function<bool(int)> matches;
    std::function<bool(int, int)> before = [](int a, int b) {
        return a > b;
    };
};

// The rows `e` must list: all matching rows in order, then the query's page of them.
std::vector<int> PageOf(const Expected& e, std::int64_t& total) {
    std::vector<int> all;
    for (int i = 1; i <= kRowCount; ++i) {
        if (e.matches(i)) {
            all.push_back(i);
        }
    }
    std::sort(all.begin(), all.end(), e.before);
    total = static_cast<std::int64_t>(all.size());
    const auto from = std::min(all.size(), static_cast<std::size_t>(e.query.page) * e.query.size);
    const auto to = std::min(all.size(), from + static_cast<std::size_t>(e.query.size));
    return {all.begin() + static_cast<std::ptrdiff_t>(from), all.begin() + static_cast<std::ptrdiff_t>(to)};
}

std::vector<orch::store::SortKey> Repeated(orch::store::SortKey key, std::size_t times, orch::store::SortKey last) {
    std::vector<orch::store::SortKey> keys(times, key);
    keys.push_back(std::move(last));
    return keys;
}

}  // namespace

TEST_CASE(
    "the deployment list gives the rows, order, fields and total the data implies, for every query shape",
    "[store][list]"
) {
    orch::test::TestDatabase db;
    orch::store::PgPool pool{orch::store::PgPoolOptions{.dsn = db.dsn(), .size = 2}};
    REQUIRE(orch::store::ApplyMigrations(pool));
    REQUIRE(pool.Run([](pqxx::connection& conn) {
        pqxx::work tx(conn);
        tx.exec(kRows);
        tx.commit();
    }));
    orch::store::PgDeploymentStore store(pool);
    const auto any = [](int) {
        return true;
    };
    const auto status_rank = [](int i) {
        return std::find(kStatuses.begin(), kStatuses.end(), StatusOf(i)) - kStatuses.begin();
    };
    std::vector<Expected> cases = {
        {{.owner = Scope({}), .size = 100}, any},  // an inline first page
        {{.owner = Scope({}), .size = 10}, any},   // another inline size
        {{.owner = Scope({}), .page = 2, .size = 7}, any},
        {{.owner = Scope({}), .page = 100, .size = 10}, any},  // past the end: the total alone
        // A caller of https://iam/ sees that issuer's rows and the unowned ones.
        {{.owner = Scope("https://iam/"), .size = 100},
         [](int i) {
             return i % 3 != 2;
         }},
        {{.owner = Scope({}, "https://iam/", "user-1"), .size = 100},
         [](int i) {
             return IssuerOf(i) == "https://iam/" && SubjectOf(i) == "user-1";
         }},
        {{.owner = Scope("https://iam/", "https://iam/", "user-1"), .size = 100},
         [](int i) {
             return IssuerOf(i) == "https://iam/" && SubjectOf(i) == "user-1";
         }},
        // Another issuer's owner: nothing, inline page and total alike.
        {{.owner = Scope("https://iam/", "https://other/", "user-1"), .size = 100},
         [](int) {
             return false;
         }},
        {{.owner = Scope({}), .user_group = "g x", .size = 100},
         [](int i) {
             return GroupOf(i) == "g x";
         }},
        {{.owner = Scope({}), .excluded_status = {"WEIRD", "CREATE_FAILED"}, .size = 100},
         [](int i) {
             return StatusOf(i) != "WEIRD" && StatusOf(i) != "CREATE_FAILED";
         }},
        {{.owner = Scope("https://other/"), .user_group = "", .excluded_status = {"DELETE_FAILED"}, .size = 3},
         [](int i) {
             return i % 3 != 1 && GroupOf(i).empty() && StatusOf(i) != "DELETE_FAILED";
         }},
        {{.owner = Scope({}), .size = 100, .sort = {{"status", false}, {"updated_at", true}}},
         any,
         [&](int a, int b) {
             return status_rank(a) != status_rank(b) ? status_rank(a) < status_rank(b) : a > b;
         }},
        // NULLs sort last ascending: the rows with a provider first.
        {{.owner = Scope({}), .size = 100, .sort = {{"cloud_provider_name", false}}},
         any,
         [](int a, int b) {
             return a % 2 != b % 2 ? a % 2 == 0 : a > b;
         }},
        // The API's longest sort (16 keys): two of them differing only in the last key are two statements.
        {{.owner = Scope({}), .size = 100, .sort = Repeated({"status", false}, 15, {"created_at", false})},
         any,
         [&](int a, int b) {
             return status_rank(a) != status_rank(b) ? status_rank(a) < status_rank(b) : a < b;
         }},
        {{.owner = Scope({}), .size = 100, .sort = Repeated({"status", false}, 15, {"created_at", true})},
         any,
         [&](int a, int b) {
             return status_rank(a) != status_rank(b) ? status_rank(a) < status_rank(b) : a > b;
         }},
    };
    // Every page of a parameterised size, near and far end alike (pages in the back half are read
    // backwards from the total), partial last page and one past the end included, under a
    // filter, an owner scope and a sort with NULLs.
    const std::vector<Expected> paged = {
        {{.owner = Scope({}), .size = 7}, any},
        {{.owner = Scope("https://iam/"), .size = 3},
         [](int i) {
             return i % 3 != 2;
         }},
        {{.owner = Scope({}), .size = 6, .sort = {{"cloud_provider_name", false}}},
         any,
         [](int a, int b) {
             return a % 2 != b % 2 ? a % 2 == 0 : a > b;
         }},
        {{.owner = Scope({}), .excluded_status = {"WEIRD"}, .size = 5, .sort = {{"status", true}}},
         [](int i) { return StatusOf(i) != "WEIRD"; },
         [&](int a, int b) {
             return status_rank(a) != status_rank(b) ? status_rank(a) > status_rank(b) : a > b;
         }},
    };
    for (const auto& base : paged) {
        for (int page = 0; page * base.query.size <= kRowCount + base.query.size; ++page) {
            Expected e = base;
            e.query.page = page;
            cases.push_back(std::move(e));
        }
    }
    for (int round = 0; round < 2; ++round) {  // the second round runs the statements the first prepared
        for (std::size_t c = 0; c < cases.size(); ++c) {
            INFO("round " << round << ", case " << c);
            std::int64_t total = 0;
            const std::vector<int> rows = PageOf(cases[c], total);
            const auto page = store.List(cases[c].query);
            REQUIRE(page);
            CHECK(page->total == total);
            std::vector<std::string> ids;
            for (const auto& d : page->items) {
                ids.push_back(d.id);
            }
            std::vector<std::string> expected_ids;
            for (const int i : rows) {
                expected_ids.push_back(IdOf(i));
            }
            CHECK(ids == expected_ids);
            for (std::size_t k = 0; k < page->items.size() && k < rows.size(); ++k) {
                CheckFields(page->items[k], rows[k]);
            }
        }
    }
}

// With auth on every list carries the caller's issuer as a parameter. Planning it on every
// execution (plan_cache_mode = force_custom_plan) was most of what auth added per request: the
// owner-scoped first page must keep a generic plan on its connection.
TEST_CASE("an owner-scoped first page is not planned on every execution", "[store][list]") {
    orch::test::TestDatabase db;
    orch::store::PgPool pool{orch::store::PgPoolOptions{.dsn = db.dsn(), .size = 1}};  // one connection
    REQUIRE(orch::store::ApplyMigrations(pool));
    REQUIRE(pool.Run([](pqxx::connection& conn) {
        pqxx::work tx(conn);
        tx.exec(kRows);
        tx.commit();
    }));
    orch::store::PgDeploymentStore store(pool);
    for (int i = 0; i < 12; ++i) {
        REQUIRE(store.List({.owner = Scope("https://iam/"), .size = 10}));
    }
    const auto plans = pool.Run([](pqxx::connection& conn) {
        pqxx::nontransaction tx(conn);
        const auto r = tx.exec(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name LIKE 'deployments_page_%'"
        );
        REQUIRE(r.size() == 1);
        return std::pair{r[0][0].as<std::int64_t>(), r[0][1].as<std::int64_t>()};
    });
    REQUIRE(plans);
    INFO("generic plans " << plans->first << ", custom plans " << plans->second);
    CHECK(plans->first >= 6);  // PostgreSQL plans the first five executions for their values
}

namespace {

// The ids the plain OFFSET query lists for `where` (the list's order), and how many match.
std::vector<std::string> PlainPage(
    orch::store::PgPool& pool, const std::string& where, std::int64_t offset, int size, std::int64_t& total
) {
    std::vector<std::string> ids;
    REQUIRE(pool.Run([&](pqxx::connection& conn) {
        pqxx::read_transaction tx(conn);
        total = tx.exec1("SELECT count(*) FROM deployments WHERE " + where)[0].as<std::int64_t>();
        for (const auto& row : tx.exec_params(
                 "SELECT id::text FROM deployments WHERE " + where +
                     " ORDER BY created_at DESC, id DESC LIMIT $1 OFFSET $2",
                 size,
                 offset
             )) {
            ids.push_back(row[0].as<std::string>());
        }
    }));
    return ids;
}

// One write of another replica: an insert anywhere in the order, a delete, a status change into or
// out of the list, or an owner change; each through the same triggers as the store's writes.
void WriteElsewhere(orch::store::PgPool& pool, int step) {
    static const std::vector<std::string> kWrites = {
        "INSERT INTO deployments (id, created_at, updated_at, status, template, owner_issuer) "
        "SELECT gen_random_uuid(), timestamptz '2026-01-01 00:00:00+00' + make_interval(secs => ($1::int * 37) % 700), "
        "now(), 'CREATE_COMPLETE', 'x', CASE WHEN $1::int % 2 = 0 THEN 'https://iam/' ELSE '' END",
        "DELETE FROM deployments WHERE id = (SELECT id FROM deployments ORDER BY md5(id::text || $1::text) LIMIT 1)",
        "UPDATE deployments SET status = CASE WHEN status = 'DELETE_COMPLETE' THEN 'CREATE_COMPLETE' "
        "ELSE 'DELETE_COMPLETE' END WHERE id = (SELECT id FROM deployments ORDER BY md5(id::text || $1::text) LIMIT 1)",
        "UPDATE deployments SET owner_issuer = CASE WHEN owner_issuer = '' THEN 'https://iam/' ELSE '' END "
        "WHERE id = (SELECT id FROM deployments ORDER BY md5(id::text || $1::text) LIMIT 1)",
    };
    REQUIRE(pool.Run([&](pqxx::connection& conn) {
        pqxx::work tx(conn);
        tx.exec_params(kWrites[static_cast<std::size_t>(step) % kWrites.size()], step);
        tx.commit();
    }));
}

}  // namespace

// Deep pages start at cached keyset anchors (ListCursorCache); another replica's writes between
// two reads must never let a stale anchor be used: every page equals the plain OFFSET query's.
TEST_CASE(
    "deep list pages read from cached anchors equal the OFFSET query's across another replica's writes", "[store][list]"
) {
    orch::test::TestDatabase db;
    orch::store::PgPool reader_pool{orch::store::PgPoolOptions{.dsn = db.dsn(), .size = 2}};
    orch::store::PgPool writer_pool{orch::store::PgPoolOptions{.dsn = db.dsn(), .size = 1}};
    REQUIRE(orch::store::ApplyMigrations(reader_pool));
    // 2,100 rows, three to a created_at (so the anchor's id decides ties), half owned by https://iam/.
    REQUIRE(writer_pool.Run([](pqxx::connection& conn) {
        pqxx::work tx(conn);
        tx.exec(
            "INSERT INTO deployments (id, created_at, updated_at, status, template, owner_issuer) "
            "SELECT gen_random_uuid(), timestamptz '2026-01-01 00:00:00+00' + make_interval(secs => i / 3), now(), "
            "'CREATE_COMPLETE', 'x', CASE WHEN i % 2 = 0 THEN 'https://iam/' ELSE '' END "
            "FROM generate_series(1, 2100) AS i"
        );
        tx.commit();
    }));
    orch::store::PgDeploymentStore reader(reader_pool);
    struct View {
        orch::auth::OwnerFilter owner;
        std::string where;
        std::vector<orch::store::SortKey> sort;
    };
    const std::vector<View> views = {
        {Scope({}), "status <> 'DELETE_COMPLETE'", {}},
        {Scope("https://iam/"), "owner_issuer IN ('https://iam/', '') AND status <> 'DELETE_COMPLETE'", {}},
        {Scope({}, "https://iam/", ""),
         "owner_issuer = 'https://iam/' AND owner_subject = '' AND status <> 'DELETE_COMPLETE'",
         {{"created_at", true}}},
    };
    const int size = 7;
    for (int step = 0; step < 240; ++step) {
        const View& view = views[static_cast<std::size_t>(step) % views.size()];
        // Deep pages, each asked a few times around a write, and their neighbours.
        const int page = 100 + (step / 6) % 40 * 3 + step % 2;
        for (int again = 0; again < 2; ++again) {
            const auto listed = reader.List({.owner = view.owner, .page = page, .size = size, .sort = view.sort});
            REQUIRE(listed);
            std::int64_t total = 0;
            const auto expected = PlainPage(writer_pool, view.where, std::int64_t{page} * size, size, total);
            std::vector<std::string> ids;
            for (const auto& d : listed->items) {
                ids.push_back(d.id);
            }
            INFO("step " << step << " page " << page << " view " << step % 3);
            CHECK(ids == expected);
            CHECK(listed->total == total);
        }
        if (step % 2 == 1) {
            WriteElsewhere(writer_pool, step);
        }
    }
}

// Planning the deep page's statement was 0.6 ms of its 0.73 (issue 23): it must keep a generic
// plan on its connection even when shallow pages, whose custom plans look cheapest, came first,
// and that plan must list what the plain OFFSET query lists.
TEST_CASE("a deep page keeps a generic plan after shallow pages and lists the OFFSET query's rows", "[store][list]") {
    orch::test::TestDatabase db;
    orch::store::PgPool pool{orch::store::PgPoolOptions{.dsn = db.dsn(), .size = 1}};  // one connection
    REQUIRE(orch::store::ApplyMigrations(pool));
    REQUIRE(pool.Run([](pqxx::connection& conn) {
        pqxx::work tx(conn);
        tx.exec(
            "INSERT INTO deployments (id, created_at, updated_at, status, template) "
            "SELECT gen_random_uuid(), timestamptz '2026-01-01 00:00:00+00' + make_interval(secs => i / 3), now(), "
            "'CREATE_COMPLETE', 'x' FROM generate_series(1, 3000) AS i"
        );
        tx.commit();
    }));
    orch::store::PgDeploymentStore store(pool);
    const int size = 10;
    for (const int page : {1, 2, 3, 4, 5, 150, 151, 150, 290, 7, 150, 299, 300, 151}) {
        const auto listed = store.List({.owner = Scope({}), .page = page, .size = size});
        REQUIRE(listed);
        std::int64_t total = 0;
        const auto expected = PlainPage(pool, "status <> 'DELETE_COMPLETE'", std::int64_t{page} * size, size, total);
        std::vector<std::string> ids;
        for (const auto& d : listed->items) {
            ids.push_back(d.id);
        }
        INFO("page " << page);
        CHECK(ids == expected);
        CHECK(listed->total == total);
    }
    const auto plans = pool.Run([](pqxx::connection& conn) {
        pqxx::nontransaction tx(conn);
        const auto r = tx.exec(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name LIKE 'deployments_anchored_%'"
        );
        REQUIRE(r.size() == 1);
        return std::pair{r[0][0].as<std::int64_t>(), r[0][1].as<std::int64_t>()};
    });
    REQUIRE(plans);
    INFO("generic plans " << plans->first << ", custom plans " << plans->second);
    CHECK(plans->first >= 8);  // PostgreSQL plans the first five executions for their values
}
