#include <orchestrator/app/app_config.hpp>

#include <catch2/catch.hpp>

#include <fstream>

#include "test_support/test_env.hpp"

using orch::app::LoadConfig;

TEST_CASE("defaults plus the environment make a valid configuration", "[orchestrator][config]") {
    auto config = LoadConfig("", {{"ORCHESTRATOR_DB_URL", "postgresql://x@127.0.0.1:1/db"},
                                  {"ORCHESTRATOR_LISTEN", "127.0.0.1:9999"},
                                  {"ORCHESTRATOR_SERVER__BODY_LIMIT", "1MiB"}});
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
