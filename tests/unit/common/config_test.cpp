#include <common/config.hpp>

#include <catch2/catch.hpp>

using orch::ConfigTree;

TEST_CASE("config reads typed values and fallbacks", "[common][config]") {
    auto tree = ConfigTree::FromYaml(
        "server:\n  listen: 0.0.0.0:9000\n  body_limit: 5MiB\n  read_timeout: 250ms\n"
        "  io_threads: 3\nauth:\n  enabled: yes\n",
        "test.yaml"
    );
    REQUIRE(tree);
    CHECK(*tree->GetString("server.listen", "x") == "0.0.0.0:9000");
    CHECK(*tree->GetBytes("server.body_limit", 1) == 5u * 1024 * 1024);
    CHECK(tree->GetDuration("server.read_timeout", std::chrono::seconds(1))->count() == 250);
    CHECK(*tree->GetInt("server.io_threads", 1, 1, 64) == 3);
    CHECK(*tree->GetBool("auth.enabled", false));
    CHECK(*tree->GetString("missing.key", "dflt") == "dflt");
}

TEST_CASE("config errors name the key and the problem", "[common][config]") {
    auto tree = ConfigTree::FromYaml("server:\n  io_threads: many\n  body_limit: lots\n", "t.yaml");
    REQUIRE(tree);
    auto threads = tree->GetInt("server.io_threads", 1, 1, 64);
    REQUIRE_FALSE(threads);
    CHECK(threads.error().message == "config key 'server.io_threads': expected an integer, got 'many'");
    auto limit = tree->GetBytes("server.body_limit", 1);
    REQUIRE_FALSE(limit);
    CHECK(limit.error().message.find("server.body_limit") != std::string::npos);
    auto range = ConfigTree::FromYaml("server:\n  io_threads: 0\n", "t.yaml")->GetInt("server.io_threads", 1, 1, 64);
    REQUIRE_FALSE(range);
    CHECK(range.error().message.find("from 1 to 64") != std::string::npos);
}

TEST_CASE("malformed YAML reports line and column", "[common][config]") {
    auto tree = ConfigTree::FromYaml("server:\n  listen: [unclosed\n", "bad.yaml");
    REQUIRE_FALSE(tree);
    CHECK(tree.error().message.rfind("bad.yaml:", 0) == 0);
}

TEST_CASE("environment overrides win over the file", "[common][config]") {
    auto tree = ConfigTree::FromYaml("server:\n  listen: a:1\ndatabase:\n  url: x\n", "t.yaml");
    REQUIRE(tree);
    const std::map<std::string, std::string> env = {
        {"ORCHESTRATOR_LISTEN", "127.0.0.1:9"},
        {"ORCHESTRATOR_SERVER__BODY_LIMIT", "1KiB"},
        {"ORCHESTRATOR_NEW__DEEP__KEY", "v"},
        {"UNRELATED", "z"}};
    auto applied = tree->ApplyEnvironment(env, {{"ORCHESTRATOR_LISTEN", "server.listen"}});
    CHECK(applied.size() == 3);
    CHECK(*tree->GetString("server.listen", "") == "127.0.0.1:9");
    CHECK(*tree->GetBytes("server.body_limit", 0) == 1024);
    CHECK(*tree->GetString("new.deep.key", "") == "v");
    CHECK(*tree->GetString("database.url", "") == "x");
}

TEST_CASE("unknown keys are refused by name", "[common][config]") {
    auto tree = ConfigTree::FromYaml("server:\n  listen: a\n  lisen: b\n", "t.yaml");
    REQUIRE(tree);
    auto status = tree->CheckKnownKeys({"server.listen", "server.body_limit"});
    REQUIRE_FALSE(status);
    CHECK(status.error().message == "config key 'server.lisen' is not known (misspelt?)");
    CHECK(tree->CheckKnownKeys({"server.*"}).has_value());
}

TEST_CASE("maps and lists accept the compact environment form", "[common][config]") {
    ConfigTree tree;
    tree.Set("tosca.mirrors", "https://a/=/x;https://b/=/y");
    auto map = tree.GetStringMap("tosca.mirrors");
    REQUIRE(map);
    CHECK(map->at("https://a/") == "/x");
    CHECK(map->at("https://b/") == "/y");
    tree.Set("auth.issuers", "https://one/, https://two/");
    auto list = tree.GetStringList("auth.issuers");
    REQUIRE(list);
    CHECK(*list == std::vector<std::string>{"https://one/", "https://two/"});
}
