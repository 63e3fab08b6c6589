// docs/openapi.yaml (embedded in the binary) against the router main builds: every route is
// described and every described operation is served, except those marked not-implemented.
#include "test_support/fakes.hpp"
#include "test_support/test_env.hpp"

#include <orchestrator/api/http_file_notification_source.hpp>
#include <orchestrator/api/quota_routes.hpp>
#include <orchestrator/app/routes.hpp>
#include <orchestrator/auth/authenticator.hpp>
#include <orchestrator/ops/openapi.hpp>
#include <orchestrator/store/pg_deployment_store.hpp>
#include <orchestrator/store/pg_idle_store.hpp>
#include <orchestrator/store/pg_schedule_store.hpp>
#include <orchestrator/store/pg_workflow_store.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <regex>
#include <set>

namespace {

using orch::Json;

// "/deployments/{id}" and "/deployments/{deploymentId}" are the same route.
std::string Normalise(const std::string& method, const std::string& path) {
    std::string upper = method;
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
    return upper + " " + std::regex_replace(path, std::regex("\\{[^}]*\\}"), "{}");
}

struct Described {
    std::set<std::string> served;
    std::set<std::string> not_implemented;
};

Described DescribedOperations(const Json& document) {
    Described out;
    for (const auto& [path, item] : document.at("paths").items()) {
        for (const auto& [method, operation] : item.items()) {
            if (method == "parameters") {
                continue;
            }
            const bool missing = operation.value("x-orch-status", "") == "not-implemented";
            (missing ? out.not_implemented : out.served).insert(Normalise(method, path));
        }
    }
    return out;
}

std::set<std::string> RegisteredRoutes() {
    // Nothing here connects: the pool opens connections lazily and no handler runs.
    orch::store::PgPool pool(orch::store::PgPoolOptions{.dsn = "postgresql://127.0.0.1:1/none"});
    orch::store::PgDeploymentStore store(pool);
    orch::store::DatabaseSupervisor database(pool);
    orch::test::FakeTemplateService templates(orch::test::SimpleSpec());
    auto authenticator = orch::auth::MakeDisabledAuthenticator();
    const orch::auth::AuthConfig auth_config;
    const orch::ManualClock clock;
    orch::api::ApiContext context{store, templates, *authenticator, nullptr, auth_config, clock, nullptr, "", [] {
                                  }};
    orch::metrics::Registry registry;
    orch::server::Router router;
    orch::store::PgScheduleStore schedule_store(pool);
    orch::api::ScheduleApi schedule_api{context, schedule_store};
    orch::app::RegisterAllRoutes(router, database, context, schedule_api, registry);
    // main's file notification source registers the notifications route.
    orch::api::HttpFileNotificationSource notifications(router, context);
    // ... and GET /quotas, over the workflow and idle stores.
    orch::store::PgWorkflowStore workflow_store(pool);
    orch::store::PgIdleStore idle_store(pool);
    orch::api::QuotaApi quota_api{context, workflow_store, idle_store, {}};
    orch::api::RegisterQuotaRoutes(router, quota_api);
    std::set<std::string> routes;
    for (const auto& route : router.routes()) {
        routes.insert(Normalise(route.method, route.pattern));
    }
    return routes;
}

}  // namespace

TEST_CASE("the embedded OpenAPI document parses as OpenAPI 3 with resolvable references", "[openapi]") {
    const auto& document = orch::ops::OpenApiDocument();
    REQUIRE(document);
    CHECK(document->at("openapi").get<std::string>().rfind("3.", 0) == 0);
    CHECK(document->at("info").contains("title"));
    // Every local $ref names something that exists.
    std::vector<const Json*> stack{&*document};
    int refs = 0;
    while (!stack.empty()) {
        const Json* node = stack.back();
        stack.pop_back();
        if (node->is_object() && node->contains("$ref")) {
            const std::string ref = node->at("$ref");
            REQUIRE(ref.rfind("#/", 0) == 0);
            CHECK(document->contains(Json::json_pointer(ref.substr(1))));
            ++refs;
        }
        if (node->is_structured()) {
            for (const auto& child : *node) {
                stack.push_back(&child);
            }
        }
    }
    CHECK(refs > 20);
}

TEST_CASE("every registered route is described and every described operation is registered", "[openapi]") {
    const auto& document = orch::ops::OpenApiDocument();
    REQUIRE(document);
    const auto described = DescribedOperations(*document);
    const auto registered = RegisteredRoutes();
    REQUIRE(registered.size() > 15);
    for (const auto& route : registered) {
        INFO("registered route " << route);
        CHECK(described.served.count(route) == 1);
        // A route marked not-implemented but now served: the marker is stale.
        CHECK(described.not_implemented.count(route) == 0);
    }
    for (const auto& operation : described.served) {
        INFO("described operation " << operation);
        CHECK(registered.count(operation) == 1);
    }
}

TEST_CASE("every route of the contract's endpoint catalogue is in the document", "[openapi]") {
    const auto& document = orch::ops::OpenApiDocument();
    REQUIRE(document);
    const auto described = DescribedOperations(*document);
    // Section 2 of api-contract.md: the table rows "| n | METHOD | `path...` |".
    const std::string contract = orch::test::ReadFile(orch::test::SharedDir() + "/reference/api-contract.md");
    const std::regex row(R"(\n\| \d+ \| (GET|POST|PUT|PATCH|DELETE) \| `([^`\[?]+)[^`]*` \|)");
    int rows = 0;
    for (auto it = std::sregex_iterator(contract.begin(), contract.end(), row); it != std::sregex_iterator(); ++it) {
        const auto key = Normalise((*it)[1], (*it)[2]);
        INFO("contract route " << key);
        CHECK((described.served.count(key) + described.not_implemented.count(key)) == 1);
        ++rows;
    }
    CHECK(rows == 21);
    for (const char* path : {"/healthz", "/readyz", "/metrics", "/openapi.json"}) {
        CHECK(described.served.count(Normalise("GET", path)) == 1);
    }
}

TEST_CASE("YAML to JSON keeps quoted scalars as strings and types the rest", "[openapi]") {
    const auto json = orch::ops::YamlTextToJson("a: \"200\"\nb: 200\nc: true\nd: ~\ne: [1.5, x]\nf: {g: 'no'}\n");
    REQUIRE(json);
    CHECK((*json)["a"] == "200");
    CHECK((*json)["b"] == 200);
    CHECK((*json)["c"] == true);
    CHECK((*json)["d"].is_null());
    CHECK((*json)["e"] == Json::array({1.5, "x"}));
    CHECK((*json)["f"]["g"] == "no");
    CHECK_FALSE(orch::ops::YamlTextToJson("a: [unclosed"));
}
