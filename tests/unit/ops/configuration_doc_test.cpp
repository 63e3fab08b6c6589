// docs/configuration.md against the code: every key the orchestrator reads is documented with a
// default, nothing else is documented, and the documented defaults of the server, database,
// workflow, tosca and auth keys are the code's defaults.
#include "test_support/test_env.hpp"

#include <orchestrator/app/app_config.hpp>
#include <orchestrator/app/config_keys.hpp>
#include <orchestrator/app/iam_client_config.hpp>
#include <orchestrator/app/workflow_config.hpp>
#include <orchestrator/auth/auth_config.hpp>
#include <tosca/engine.hpp>

#include <catch2/catch.hpp>

#include <regex>
#include <set>

namespace {

struct DocRow {
    std::string key;
    std::string default_text;
};

std::vector<DocRow> DocumentedRows() {
    const std::string doc = orch::test::ReadFile(orch::test::SourceDir() + "/docs/configuration.md");
    const std::regex row(R"(\n\| `([a-z_.<>*]+)` \| ([^|]*) \|)");
    std::vector<DocRow> rows;
    for (auto it = std::sregex_iterator(doc.begin(), doc.end(), row); it != std::sregex_iterator(); ++it) {
        std::string text = (*it)[2];
        while (!text.empty() && text.back() == ' ') {
            text.pop_back();
        }
        rows.push_back({(*it)[1], text});
    }
    return rows;
}

// "auth.issuers.<name>.*" and "credentials.<name>.token" are the code's "auth.issuers.*" and
// "credentials.*".
std::string CodeForm(const std::string& documented) {
    const auto at = documented.find(".<name>");
    return at == std::string::npos ? documented : documented.substr(0, at) + ".*";
}

}  // namespace

TEST_CASE("configuration.md lists every configuration key the code reads, with a default", "[config]") {
    const auto rows = DocumentedRows();
    REQUIRE(rows.size() > 50);
    std::set<std::string> documented;
    for (const auto& row : rows) {
        INFO("documented key " << row.key);
        CHECK_FALSE(row.default_text.empty());
        documented.insert(CodeForm(row.key));
    }
    const auto known = orch::app::KnownConfigKeys();
    for (const auto& key : known) {
        INFO("key read by the code: " << key);
        CHECK(documented.count(key) == 1);
    }
    for (const auto& key : documented) {
        INFO("documented key: " << key);
        CHECK(known.count(key) == 1);
    }
}

TEST_CASE("documented defaults of server, database, workflow and tosca keys are the code's", "[config]") {
    // Every such row whose default is one backticked scalar is fed back as an override; the
    // parsed options must equal the untouched defaults.
    std::map<std::string, std::string> env{{"ORCHESTRATOR_DB_URL", "postgresql://x@127.0.0.1:1/x"}};
    int fed = 0;
    for (const auto& row : DocumentedRows()) {
        const std::regex scalar("`([^`{}\\[\\]]+)`");
        std::smatch value;
        const auto section = row.key.substr(0, row.key.find('.'));
        if ((section != "server" && section != "database" && section != "workflow" && section != "tosca") ||
            !std::regex_match(row.default_text, value, scalar)) {
            continue;
        }
        std::string name = "ORCHESTRATOR_" + section + "__" + row.key.substr(section.size() + 1);
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
        env[name] = value[1];
        ++fed;
    }
    CHECK(fed >= 30);
    auto config = orch::app::LoadConfig("", env);
    REQUIRE(config);
    const orch::server::ServerOptions server;
    CHECK(config->server.listen == server.listen);
    CHECK(config->server.body_limit == server.body_limit);
    CHECK(config->server.header_limit == server.header_limit);
    CHECK(config->server.header_timeout == server.header_timeout);
    CHECK(config->server.body_timeout == server.body_timeout);
    CHECK(config->server.idle_timeout == server.idle_timeout);
    CHECK(config->server.write_timeout == server.write_timeout);
    CHECK(config->server.shutdown_grace == server.shutdown_grace);
    CHECK(config->server.io_threads == server.io_threads);
    CHECK(config->server.worker_threads == server.worker_threads);
    CHECK(config->server.max_queued_requests == server.max_queued_requests);
    CHECK(config->server.max_connections == server.max_connections);
    CHECK(config->server.access_log == server.access_log);
    const orch::store::PgPoolOptions database;
    CHECK(config->database.size == database.size);
    CHECK(config->database.acquire_timeout == database.acquire_timeout);
    CHECK(config->database.statement_timeout == database.statement_timeout);
    CHECK(config->database.connect_timeout == database.connect_timeout);
    orch::workflow::EngineOptions engine;
    orch::workflow::StepOptions steps;
    REQUIRE(orch::app::ParseWorkflowConfig(config->tree, engine, steps));
    const orch::workflow::EngineOptions engine_defaults;
    const orch::workflow::StepOptions step_defaults;
    CHECK(engine.workers == engine_defaults.workers);
    CHECK(engine.lease == engine_defaults.lease);
    CHECK(engine.idle_poll == engine_defaults.idle_poll);
    CHECK(steps.first_poll == step_defaults.first_poll);
    CHECK(steps.max_poll == step_defaults.max_poll);
    CHECK(steps.crash_loop_timeout == step_defaults.crash_loop_timeout);
    CHECK(steps.max_transient_retries == step_defaults.max_transient_retries);
    CHECK(steps.callback_retries == step_defaults.callback_retries);
    CHECK(steps.callback_timeout == step_defaults.callback_timeout);
    CHECK(steps.callback_max_backoff == step_defaults.callback_max_backoff);
    CHECK(steps.callback_max_age == step_defaults.callback_max_age);
    CHECK(steps.create_call_timeout == step_defaults.create_call_timeout);
    CHECK(steps.late_sweeps == step_defaults.late_sweeps);
    CHECK(steps.late_sweep_interval == step_defaults.late_sweep_interval);
    CHECK(steps.default_provider_timeout_mins == step_defaults.default_provider_timeout_mins);
    CHECK(steps.admission_weights.default_weight == step_defaults.admission_weights.default_weight);
    CHECK(steps.admission_fair_share.starvation_age == step_defaults.admission_fair_share.starvation_age);
    CHECK(steps.admission_half_life == step_defaults.admission_half_life);
    auto tosca = orch::tosca::EngineOptionsFromConfig(config->tree);
    REQUIRE(tosca);
    const orch::tosca::EngineOptions tosca_defaults;
    CHECK(tosca->limits.max_document_bytes == tosca_defaults.limits.max_document_bytes);
    CHECK(tosca->fetch_timeout == tosca_defaults.fetch_timeout);
    CHECK(tosca->unknown_parameters == tosca_defaults.unknown_parameters);
    CHECK(tosca->fetched_ttl == tosca_defaults.fetched_ttl);
}

TEST_CASE("documented defaults of the auth keys are the code's", "[config][auth]") {
    // Same method: each `auth.*` row whose default is one backticked scalar is set explicitly on a
    // minimal valid oidc configuration, which must then load exactly as without them.
    const std::string minimal =
        "auth:\n  token_key: MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=\n  issuers:\n    x:\n"
        "      issuer: https://iam.example.org/\n      client_id: c\n      client_secret: s\n";
    auto tree = orch::ConfigTree::FromYaml(minimal, "test.yaml");
    REQUIRE(tree);
    const auto defaults = orch::auth::LoadAuthConfig(*tree);
    REQUIRE(defaults);
    int fed = 0;
    for (const auto& row : DocumentedRows()) {
        const std::regex scalar("`([^`{}\\[\\]]+)`");
        std::smatch value;
        if (row.key.rfind("auth.", 0) != 0 || !std::regex_match(row.default_text, value, scalar)) {
            continue;
        }
        INFO(row.key << " = " << value[1]);
        tree->Set(row.key, value[1]);
        ++fed;
    }
    CHECK(fed >= 13);
    const auto documented = orch::auth::LoadAuthConfig(*tree);
    REQUIRE(documented);
    CHECK(documented->mode == defaults->mode);
    CHECK(documented->clock_skew == defaults->clock_skew);
    CHECK(documented->max_token_bytes == defaults->max_token_bytes);
    CHECK(documented->http_timeout == defaults->http_timeout);
    CHECK(documented->jwks_min_refresh_interval == defaults->jwks_min_refresh_interval);
    CHECK(documented->jwks_max_age == defaults->jwks_max_age);
    CHECK(documented->discovery_max_age == defaults->discovery_max_age);
    CHECK(documented->cache_max_entries == defaults->cache_max_entries);
    CHECK(documented->cache_max_ttl == defaults->cache_max_ttl);
    CHECK(documented->negative_cache_ttl == defaults->negative_cache_ttl);
    CHECK(documented->max_concurrent_idp_calls == defaults->max_concurrent_idp_calls);
    CHECK(documented->refresh_margin == defaults->refresh_margin);
    CHECK(documented->admins_operate_on_any == defaults->admins_operate_on_any);
}

TEST_CASE("fair-share weights are read per group and a weight that is not a positive number is refused", "[config]") {
    const auto parse = [](const std::string& yaml) {
        auto tree = orch::ConfigTree::FromYaml(yaml, "test.yaml");
        REQUIRE(tree);
        orch::workflow::EngineOptions engine;
        orch::workflow::StepOptions steps;
        auto parsed = orch::app::ParseWorkflowConfig(*tree, engine, steps);
        return std::make_pair(static_cast<bool>(parsed), steps);
    };
    const auto [ok, steps] =
        parse("workflow:\n  admission_weights:\n    physics: 2\n    bio: 0.5\n  admission_default_weight: 3\n");
    REQUIRE(ok);
    CHECK(steps.admission_weights.For("physics") == 2);
    CHECK(steps.admission_weights.For("bio") == 0.5);
    CHECK(steps.admission_weights.For("other") == 3);
    CHECK_FALSE(parse("workflow:\n  admission_weights:\n    physics: -1\n").first);
    CHECK_FALSE(parse("workflow:\n  admission_weights:\n    physics: lots\n").first);
    CHECK_FALSE(parse("workflow:\n  admission_default_weight: 0\n").first);
}

TEST_CASE("admission cohorts are read per group, and a bad limit or a group in two cohorts is refused", "[config]") {
    const auto parse = [](const std::string& yaml) {
        auto tree = orch::ConfigTree::FromYaml(yaml, "test.yaml");
        REQUIRE(tree);
        orch::workflow::EngineOptions engine;
        orch::workflow::StepOptions steps;
        auto parsed = orch::app::ParseWorkflowConfig(*tree, engine, steps);
        return std::make_pair(static_cast<bool>(parsed), steps);
    };
    const auto [ok, steps] = parse(
        "workflow:\n  admission_cohorts:\n    research:\n      physics: {nominal: 4, lending_limit: 2}\n"
        "      bio: {nominal: 2, borrowing_limit: 1}\n"
    );
    REQUIRE(ok);
    const auto* cohort = steps.admission_cohorts.CohortOf("bio");
    REQUIRE(cohort != nullptr);
    CHECK(cohort->at("physics").nominal == 4);
    CHECK(cohort->at("physics").lending_limit == 2);
    CHECK(cohort->at("physics").borrowing_limit == orch::workflow::CohortQuota::kUnlimited);
    CHECK(cohort->at("bio").borrowing_limit == 1);
    CHECK(steps.admission_cohorts.CohortOf("chem") == nullptr);
    // bio: 2 of its own + 1 borrowed; physics: 4 + at most what bio lends (all of its 2).
    CHECK(steps.admission_cohorts.CeilingOf("bio") == 3);
    CHECK(steps.admission_cohorts.CeilingOf("physics") == 6);
    CHECK_FALSE(parse("workflow:\n  admission_cohorts:\n    a:\n      physics: {nominal: -1}\n").first);
    CHECK_FALSE(parse("workflow:\n  admission_cohorts:\n    a:\n      physics: {nominal: lots}\n").first);
    CHECK_FALSE(parse("workflow:\n  admission_cohorts:\n    a:\n      physics: {nominal: 1}\n    b:\n      physics: "
                      "{nominal: 1}\n")
                    .first);
}

TEST_CASE("documented defaults of the iam_clients keys are the code's", "[config][iam]") {
    auto tree = orch::ConfigTree::FromYaml("iam_clients: {}\n", "test.yaml");
    REQUIRE(tree);
    int fed = 0;
    for (const auto& row : DocumentedRows()) {
        const std::regex scalar("`([^`{}\\[\\]\"]+)`");
        std::smatch value;
        if (row.key.rfind("iam_clients.", 0) != 0 || !std::regex_match(row.default_text, value, scalar)) {
            continue;
        }
        INFO(row.key << " = " << value[1]);
        tree->Set(row.key, value[1]);
        ++fed;
    }
    CHECK(fed >= 5);
    const auto documented = orch::app::ParseIamClientConfig(*tree);
    REQUIRE(documented);
    const orch::app::IamClientConfig defaults;
    CHECK(documented->enabled == defaults.enabled);
    CHECK(documented->timeout == defaults.timeout);
    CHECK(documented->sweep.interval == defaults.sweep.interval);
    CHECK(documented->sweep.grace == defaults.sweep.grace);
    CHECK(documented->sweep.batch == defaults.sweep.batch);
    CHECK_FALSE(orch::app::ParseIamClientConfig(*orch::ConfigTree::FromYaml("iam_clients: {timeout: 0s}\n", "t.yaml")));
}
