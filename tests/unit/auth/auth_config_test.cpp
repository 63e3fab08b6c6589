#include "orchestrator/auth/auth_config.hpp"

#include <catch2/catch.hpp>

using namespace orch;
using namespace orch::auth;

namespace {

constexpr const char* kKeyB64 = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";  // 32 bytes

ConfigTree Tree(const std::string& yaml) {
    auto tree = ConfigTree::FromYaml(yaml, "test.yaml");
    REQUIRE(tree);
    return std::move(*tree);
}

std::string LoadError(const std::string& yaml) {
    auto config = LoadAuthConfig(Tree(yaml));
    REQUIRE_FALSE(config);
    CHECK(config.error().code == ErrorCode::kInvalidArgument);
    return config.error().message;
}

const std::string kIssuer =
    "\n  issuers:\n    infn:\n      issuer: https://iam.cloud.infn.it/\n      client_id: orchestrator\n"
    "      client_secret: s3cret\n";

}  // namespace

TEST_CASE("auth: disabled (scalar form) and auth.mode: disabled need nothing else") {
    auto scalar = LoadAuthConfig(Tree("auth: disabled\n"));
    REQUIRE(scalar);
    CHECK(scalar->mode == AuthMode::kDisabled);
    auto mapping = LoadAuthConfig(Tree("auth:\n  mode: disabled\n"));
    REQUIRE(mapping);
    CHECK(mapping->mode == AuthMode::kDisabled);
}

TEST_CASE("the default mode is oidc, which needs issuers and a token key") {
    CHECK(LoadError("{}").rfind("config key 'auth.token_key': is required when auth is on", 0) == 0);
    CHECK(
        LoadError(std::string("auth:\n  token_key: ") + kKeyB64 + "\n") ==
        "config key 'auth.issuers': at least one trusted issuer is required when auth.mode is oidc"
    );
    CHECK(LoadError("auth:\n  mode: maybe\n") == "config key 'auth.mode': expected one of disabled, oidc, got 'maybe'");
}

TEST_CASE("a full issuer entry with defaults") {
    auto config = LoadAuthConfig(Tree(std::string("auth:\n  token_key: ") + kKeyB64 + "\n" + kIssuer));
    REQUIRE(config);
    CHECK(config->mode == AuthMode::kOidc);
    CHECK(config->token_key == "0123456789abcdef0123456789abcdef");
    REQUIRE(config->issuers.size() == 1);
    const IssuerConfig& infn = config->issuers[0];
    CHECK(infn.name == "infn");
    CHECK(infn.admin_group == "orchestrator-admins");
    CHECK(infn.algorithms == std::vector<JwsAlgorithm>{JwsAlgorithm::kRs256});
    CHECK(infn.scopes == std::vector<std::string>{"openid", "profile", "offline_access", "fts:submit-transfer"});
    CHECK(infn.groups_claim == "groups");
    CHECK(infn.introspection == IntrospectionUse::kAuto);
    CHECK(config->FindIssuer("https://iam.cloud.infn.it/") == &config->issuers[0]);
    CHECK(config->FindIssuer("https://iam.cloud.infn.it") == nullptr);  // exact match, slash included
    CHECK(config->clock_skew == std::chrono::seconds(60));
    CHECK(config->max_token_bytes == 8192);
    CHECK(config->scopes.write_any_of == std::vector<std::string>{"offline_access", "fts:submit-transfer"});
}

TEST_CASE("admins act on other users' deployments only when configured (v4.0.1 refuses it)") {
    const std::string base = std::string("auth:\n  token_key: ") + kKeyB64 + "\n";
    auto by_default = LoadAuthConfig(Tree(base + kIssuer));
    REQUIRE(by_default);
    CHECK_FALSE(by_default->admins_operate_on_any);
    CHECK_FALSE(AuthConfig{}.admins_operate_on_any);
    auto enabled = LoadAuthConfig(Tree(base + "  admins_operate_on_any: true" + kIssuer));
    REQUIRE(enabled);
    CHECK(enabled->admins_operate_on_any);
}

TEST_CASE("secrets come from the environment and never appear in errors") {
    ConfigTree tree = Tree(std::string("auth:") + kIssuer);
    tree.ApplyEnvironment(
        {{"ORCHESTRATOR_AUTH__TOKEN_KEY", std::string(64, 'a')},
         {"ORCHESTRATOR_AUTH__ISSUERS__INFN__CLIENT_SECRET", "from-env"}},
        {}
    );
    auto config = LoadAuthConfig(tree);
    REQUIRE(config);
    CHECK(config->token_key == std::string(32, '\xaa'));
    CHECK(config->issuers[0].client_secret == "from-env");

    const std::string error = LoadError("auth:\n  token_key: not-a-key-but-a-secret-value\n" + kIssuer);
    CHECK(
        error ==
        "config key 'auth.token_key': must be 32 bytes given as base64 or as 64 hex digits (the value is not shown)"
    );
    CHECK(error.find("not-a-key") == std::string::npos);
}

TEST_CASE("issuer validation names the key") {
    const std::string head = std::string("auth:\n  token_key: ") + kKeyB64 + "\n  issuers:\n    infn:\n";
    CHECK(
        LoadError(head + "      client_id: x\n      client_secret: y\n") ==
        "config key 'auth.issuers.infn.issuer': is required (the exact 'iss' of the tokens, e.g. "
        "https://iam.example.org/)"
    );
    CHECK(
        LoadError(head + "      issuer: http://iam.example.org/\n      client_id: x\n      client_secret: y\n") ==
        "config key 'auth.issuers.infn.issuer': must be an https URL (plain http is only allowed on loopback)"
    );
    CHECK(
        LoadError(head + "      issuer: https://iam.example.org/\n")
            .rfind("config key 'auth.issuers.infn.client_id': is required", 0) == 0
    );
    CHECK(
        LoadError(
            head + "      issuer: https://iam.example.org/\n      client_id: x\n      client_secret: y\n      "
                   "algorithms: [RS256, HS256]\n"
        ) == "config key 'auth.issuers.infn.algorithms': 'HS256' is never accepted (no HMAC, no 'none')"
    );
    CHECK(
        LoadError(
            head + "      issuer: https://iam.example.org/\n      client_id: x\n      client_secret: y\n      "
                   "algorithm: RS256\n"
        ) == "config key 'auth.issuers.infn.algorithm': is not known (misspelt?)"
    );
    CHECK(
        LoadError(
            head + "      issuer: https://iam.example.org/\n      client_id: x\n      client_secret: y\n      "
                   "introspection: sometimes\n"
        ) == "config key 'auth.issuers.infn.introspection': expected one of never, auto, always, got 'sometimes'"
    );
    CHECK(
        LoadError(
            std::string("auth:\n  token_key: ") + kKeyB64 + "\n  issuers:\n    Bad-Name:\n      issuer: https://x/\n"
        )
            .rfind("config key 'auth.issuers.Bad-Name': issuer names are lowercase", 0) == 0
    );
    CHECK(
        LoadError(
            std::string("auth:\n  token_key: ") + kKeyB64 + kIssuer +
            "      introspection: never\n      token_exchange: false\n      opaque_tokens: true\n"
        ) ==
        "config key 'auth.issuers.infn.opaque_tokens': needs introspection (opaque tokens can only be checked by the "
        "issuer)"
    );
}

TEST_CASE("a client-less issuer is fine when it needs no client") {
    auto config = LoadAuthConfig(Tree(
        std::string("auth:\n  token_key: ") + kKeyB64 +
        "\n  issuers:\n    local_iam:\n      issuer: http://127.0.0.1:8443/\n      introspection: never\n      "
        "token_exchange: false\n"
    ));
    REQUIRE(config);
    CHECK(config->issuers[0].client_id.empty());
}

TEST_CASE("limits and scope policy are configurable and bounded") {
    auto config = LoadAuthConfig(Tree(
        std::string("auth:\n  token_key: ") + kKeyB64 + kIssuer +
        "  clock_skew: 10s\n  max_token_bytes: 16KiB\n  required_scopes:\n    write_any_of: [offline_access]\n"
    ));
    REQUIRE(config);
    CHECK(config->clock_skew == std::chrono::seconds(10));
    CHECK(config->max_token_bytes == 16384);
    CHECK(config->scopes.write_any_of == std::vector<std::string>{"offline_access"});
    CHECK(
        LoadError(std::string("auth:\n  token_key: ") + kKeyB64 + kIssuer + "  clock_skew: 1h\n") ==
        "config key 'auth.clock_skew': must be at most 300s"
    );
    CHECK(
        LoadError(std::string("auth:\n  token_key: ") + kKeyB64 + kIssuer + "  http_timeout: 10ms\n") ==
        "config key 'auth.http_timeout': must be between 100ms and 60000ms"
    );
    CHECK(
        LoadError(std::string("auth:\n  token_key: ") + kKeyB64 + kIssuer + "  max_token_bytes: 1MiB\n") ==
        "config key 'auth.max_token_bytes': must be between 512 and 65536 bytes"
    );
}

TEST_CASE("the known-key list catches typos in the auth section") {
    auto tree = Tree(std::string("auth:\n  token_key: x\n  clock_skeww: 5s\n") + kIssuer);
    auto status = tree.CheckKnownKeys(AuthConfigKeys());
    REQUIRE_FALSE(status);
    CHECK(status.error().message == "config key 'auth.clock_skeww' is not known (misspelt?)");
    CHECK(Tree(std::string("auth:\n  token_key: x\n") + kIssuer).CheckKnownKeys(AuthConfigKeys()));
    CHECK(Tree("auth: disabled\n").CheckKnownKeys(AuthConfigKeys()));
}
