// Packaging checks that need no Docker engine: Debian's docker-compose parses and validates
// docker-compose.yml, and the Dockerfile installs what scripts/install-deps lists.
#include "test_support/test_env.hpp"

#include <orchestrator/ops/openapi.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <regex>
#include <set>
#include <sstream>

namespace {

using orch::Json;

struct CommandResult {
    int status = -1;
    std::string output;
};

// Runs a shell command (fixed text built by the test, no user input) and captures stdout.
CommandResult Run(const std::string& command) {
    CommandResult result;
    FILE* pipe = ::popen(command.c_str(), "r");  // NOLINT(cert-env33-c): test helper
    REQUIRE(pipe != nullptr);
    std::array<char, 4096> buffer{};
    std::size_t n = 0;
    while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
        result.output.append(buffer.data(), n);
    }
    result.status = ::pclose(pipe);
    return result;
}

std::set<std::string> Lines(const std::string& text) {
    std::set<std::string> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty()) {
            out.insert(line);
        }
    }
    return out;
}

// An array of scripts/install-deps (PACKAGES: building and running; TEST_PACKAGES: the tests'
// extras), evaluated by bash itself (comments, line breaks).
std::set<std::string> InstallDepsArray(const std::string& name) {
    const auto res =
        Run("bash -c 'eval \"$(sed -n \"/^" + name + "=(/,/^)/p\" " + orch::test::SourceDir() +
            "/scripts/install-deps)\"; printf \"%s\\n\" \"${" + name + "[@]}\"'");
    REQUIRE(res.status == 0);
    return Lines(res.output);
}

}  // namespace

TEST_CASE("docker-compose config accepts the compose file and it has the four services", "[packaging]") {
    const std::string file = orch::test::SourceDir() + "/docker-compose.yml";
    const auto services = Run("docker-compose -f " + file + " config --services 2>&1");
    INFO(services.output);
    REQUIRE(services.status == 0);
    CHECK(Lines(services.output) == std::set<std::string>{"postgres", "orchestrator", "site-sim", "oidc"});

    const auto config = Run("docker-compose -f " + file + " config 2>&1");
    REQUIRE(config.status == 0);
    const auto parsed = orch::ops::YamlTextToJson(config.output);
    REQUIRE(parsed);
    const Json& s = (*parsed)["services"];
    CHECK(s["orchestrator"]["depends_on"]["postgres"]["condition"] == "service_healthy");
    // The simulator and the OIDC provider share the orchestrator's loopback.
    CHECK(s["site-sim"]["network_mode"] == "service:orchestrator");
    CHECK(s["oidc"]["network_mode"] == "service:orchestrator");
    CHECK(
        s["orchestrator"]["environment"]["ORCHESTRATOR_DB_URL"].get<std::string>().find("@postgres:5432/") !=
        std::string::npos
    );
    // Build targets name stages that exist in the Dockerfile.
    const std::string dockerfile = orch::test::ReadFile(orch::test::SourceDir() + "/Dockerfile");
    for (const char* service : {"orchestrator", "site-sim"}) {
        const std::string target = s[service]["build"]["target"];
        CHECK(dockerfile.find(" AS " + target + "\n") != std::string::npos);
    }
}

TEST_CASE(
    "scripts/install-deps run installs the run-time set only, the default adds the tests' extras", "[packaging]"
) {
    const auto run = InstallDepsArray("PACKAGES");
    const auto test = InstallDepsArray("TEST_PACKAGES");
    CHECK(run.count("libpqxx-dev") == 1);
    CHECK(run.count("postgresql-15") == 1);
    // What only the tests start stays out of a newcomer's first `scripts/run`.
    for (const char* extra :
         {"slurmctld", "python3-nova", "rabbitmq-server", "prometheus", "clang", "docker-compose", "catch2"}) {
        INFO(extra);
        CHECK(run.count(extra) == 0);
        CHECK(test.count(extra) == 1);
    }
    const std::string run_script = orch::test::ReadFile(orch::test::SourceDir() + "/scripts/run");
    CHECK(run_script.find("scripts/install-deps\" run") != std::string::npos);
    CHECK(run_script.find("tosca-check") != std::string::npos);
}

TEST_CASE(
    "the Dockerfile installs exactly scripts/install-deps' run-time packages plus their runtime libraries",
    "[packaging]"
) {
    const auto packages = InstallDepsArray("PACKAGES");
    REQUIRE(packages.count("libpqxx-dev") == 1);
    const std::string dockerfile = orch::test::ReadFile(orch::test::SourceDir() + "/Dockerfile");
    // Build stage: the one list, through the script itself, and no other package installation.
    const auto runtime_at = dockerfile.find(" AS runtime");
    REQUIRE(runtime_at != std::string::npos);
    const std::string build_stage = dockerfile.substr(0, runtime_at);
    CHECK(build_stage.find("RUN scripts/install-deps run") != std::string::npos);
    // tosca-check ships in the image for CI pipelines.
    CHECK(dockerfile.find("COPY --from=build /src/build/bin/tosca-check") != std::string::npos);
    CHECK(build_stage.find("apt-get install") == std::string::npos);
    // Runtime stage: every package is in the list or a runtime dependency of a package in it.
    const std::regex install(R"(--no-install-recommends\s*\\?\s*\n?\s*([^&]+)&&)");
    std::smatch match;
    const std::string runtime_stage = dockerfile.substr(runtime_at);
    REQUIRE(std::regex_search(runtime_stage, match, install));
    std::istringstream words(match[1].str());
    std::string runtime_package;
    int checked = 0;
    while (words >> runtime_package) {
        if (runtime_package == "\\") {
            continue;
        }
        INFO("runtime package " << runtime_package);
        bool provided = packages.count(runtime_package) == 1;
        for (auto it = packages.begin(); !provided && it != packages.end(); ++it) {
            const auto depends = Run("dpkg-query -W -f='${Depends}' " + *it + " 2>/dev/null");
            provided = std::regex_search(depends.output, std::regex("(^|[ ,|])" + runtime_package + "([ ,:]|$)"));
        }
        CHECK(provided);
        ++checked;
    }
    CHECK(checked >= 4);
}
