#include "test_support/test_env.hpp"

#include <orchestrator/app/app_config.hpp>
#include <orchestrator/app/contextualisation_config.hpp>

#include <catch2/catch.hpp>

#include <fstream>

using orch::app::LoadConfig;

TEST_CASE("defaults plus the environment make a valid configuration", "[orchestrator][config]") {
    auto config = LoadConfig(
        "",
        {{"ORCHESTRATOR_DB_URL", "postgresql://x@127.0.0.1:1/db"},
         {"ORCHESTRATOR_LISTEN", "127.0.0.1:9999"},
         {"ORCHESTRATOR_SERVER__BODY_LIMIT", "1MiB"}}
    );
    REQUIRE(config);
    CHECK(config->server.listen == "127.0.0.1:9999");
    CHECK(config->server.body_limit == 1u << 20);
    CHECK(config->database.dsn == "postgresql://x@127.0.0.1:1/db");
    CHECK(config->database.size == 8);
}

TEST_CASE("a missing database URL is named", "[orchestrator][config]") {
    auto config = LoadConfig("", {});
    REQUIRE_FALSE(config);
    CHECK(config.error().message == "config key 'database.url': required (or set ORCHESTRATOR_DB_URL)");
}

TEST_CASE("bad values in the file are named with the key", "[orchestrator][config]") {
    const std::string path = orch::test::BinaryDir() + "/app_config_test.yaml";
    std::ofstream(path) << "server:\n  io_threads: 0\ndatabase:\n  url: postgresql://x/y\n";
    auto config = LoadConfig(path, {});
    REQUIRE_FALSE(config);
    CHECK(config.error().message.find("server.io_threads") != std::string::npos);
    std::ofstream(path) << "server:\n  listen: nohostport\ndatabase:\n  url: postgresql://x/y\n";
    auto listen = LoadConfig(path, {});
    REQUIRE_FALSE(listen);
    CHECK(listen.error().message.find("server.listen") != std::string::npos);
    std::ofstream(path) << "log:\n  level: loud\ndatabase:\n  url: postgresql://x/y\n";
    auto level = LoadConfig(path, {});
    REQUIRE_FALSE(level);
    CHECK(level.error().message.find("log.level") != std::string::npos);
}

TEST_CASE("contextualisation: off by default, a role source required when on", "[orchestrator][config]") {
    const std::map<std::string, std::string> base{{"ORCHESTRATOR_DB_URL", "postgresql://x@127.0.0.1:1/db"}};
    auto config = LoadConfig("", base);
    REQUIRE(config);
    auto off = orch::app::ParseContextualisationConfig(config->tree);
    REQUIRE(off);
    CHECK_FALSE(off->enabled);
    const orch::connectors::AnsibleOptions ansible_defaults;
    CHECK(off->ansible.node_time_limit == ansible_defaults.node_time_limit);
    CHECK(off->connector.ssh_user == "cloudadm");

    auto env = base;
    env["ORCHESTRATOR_CONTEXTUALISATION__ENABLED"] = "true";
    auto no_roles = orch::app::ParseContextualisationConfig(LoadConfig("", env)->tree);
    REQUIRE_FALSE(no_roles);
    CHECK_THAT(no_roles.error().message, Catch::Contains("contextualisation.role_dir"));

    env["ORCHESTRATOR_CONTEXTUALISATION__ROLE_DIR"] = "/srv/roles";
    env["ORCHESTRATOR_CONTEXTUALISATION__NODE_TIME_LIMIT"] = "5m";
    env["ORCHESTRATOR_CONTEXTUALISATION__SSH_PORT"] = "2222";
    auto on = orch::app::ParseContextualisationConfig(LoadConfig("", env)->tree);
    REQUIRE(on);
    CHECK(on->enabled);
    CHECK(on->ansible.role_dir == "/srv/roles");
    CHECK(on->ansible.node_time_limit == std::chrono::minutes(5));
    CHECK(on->connector.ssh_port == 2222);

    env["ORCHESTRATOR_CONTEXTUALISATION__SSH_PORT"] = "70000";
    auto bad_port = orch::app::ParseContextualisationConfig(LoadConfig("", env)->tree);
    REQUIRE_FALSE(bad_port);
    CHECK_THAT(bad_port.error().message, Catch::Contains("contextualisation.ssh_port"));
}
