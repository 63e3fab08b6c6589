// The built binaries against the packaging files: the compose configuration and the Kubernetes
// manifests' configuration (deploy/kubernetes) are accepted by the real orchestrator, and every
// shared library the binaries link directly comes from a package the Dockerfile's runtime stage
// installs (or the base image's essentials); `cmake --install` lays out a prefix the installed
// binary runs from, types profile included.
#include "test_support/process.hpp"
#include "test_support/test_env.hpp"

#include <common/http_client.hpp>
#include <common/json.hpp>

#include <catch2/catch.hpp>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace {

struct CommandResult {
    int status = -1;
    std::string output;
};

CommandResult Run(const std::string& command) {
    CommandResult result;
    FILE* pipe = ::popen(command.c_str(), "r");  // NOLINT(cert-env33-c): fixed test commands
    REQUIRE(pipe != nullptr);
    std::array<char, 4096> buffer{};
    std::size_t n = 0;
    while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
        result.output.append(buffer.data(), n);
    }
    result.status = ::pclose(pipe);
    return result;
}

std::set<std::string> RuntimePackages() {
    const std::string dockerfile = orch::test::ReadFile(orch::test::SourceDir() + "/Dockerfile");
    const std::string runtime = dockerfile.substr(dockerfile.find(" AS runtime"));
    std::smatch match;
    REQUIRE(std::regex_search(runtime, match, std::regex(R"(--no-install-recommends\s*\\?\s*\n?\s*([^&]+)&&)")));
    std::istringstream words(match[1].str());
    std::set<std::string> packages{"libc6", "libstdc++6", "libgcc-s1"};  // in debian:bookworm-slim
    std::string word;
    while (words >> word) {
        if (word != "\\") {
            packages.insert(word);
        }
    }
    return packages;
}

// The Debian package owning a shared library the binary links directly.
std::string PackageOf(const std::string& binary, const std::string& library) {
    const auto path = Run("ldd " + binary + " | awk '$1==\"" + library + "\" {print $3}'").output;
    REQUIRE_FALSE(path.empty());
    const std::string file = path.substr(0, path.find('\n'));
    // usrmerge: the library may be registered under /usr/lib or /lib.
    for (const std::string& candidate : {file, "/usr" + file, file.rfind("/usr", 0) == 0 ? file.substr(4) : file}) {
        const auto owner = Run("dpkg -S " + candidate + " 2>/dev/null | head -1");
        if (owner.status == 0 && !owner.output.empty()) {
            return owner.output.substr(0, owner.output.find_first_of(":"));
        }
    }
    return "(unknown: " + file + ")";
}

}  // namespace

TEST_CASE("the compose configuration passes the orchestrator's --check-config", "[packaging]") {
    const std::string dir = orch::test::SourceDir() + "/packaging/compose";
    const auto res =
        Run("ORCHESTRATOR_DB_URL=postgresql://x@127.0.0.1:1/x ORCHESTRATOR_PLACEMENT__CATALOGUE__PATH=" + dir +
            "/catalogue.yaml ORCHESTRATOR_PLACEMENT__SLA__PATH=" + dir + "/sla.yaml " + orch::test::BinaryDir() +
            "/bin/orchestrator --config " + dir + "/orchestrator.yaml --check-config 2>&1");
    INFO(res.output);
    CHECK(res.status == 0);
    CHECK(res.output.find("configuration OK") != std::string::npos);
}

TEST_CASE("the Kubernetes manifests' ConfigMap and Secret keys pass the orchestrator's --check-config", "[packaging]") {
    // The files the ConfigMap mounts at /etc/orchestrator, written where the test can put them,
    // and the Secret's keys as the environment its envFrom gives the container.
    const std::string source = orch::test::SourceDir() + "/deploy/kubernetes/";
    const std::string dir = orch::test::BinaryDir() + "/test-kube-manifests";
    std::filesystem::create_directories(dir);
    const YAML::Node config = YAML::LoadFile(source + "10-config.yaml");
    REQUIRE(config["kind"].as<std::string>() == "ConfigMap");
    for (const auto& file : config["data"]) {
        std::ofstream(dir + "/" + file.first.as<std::string>()) << file.second.as<std::string>();
    }
    const YAML::Node secret = YAML::LoadFile(source + "20-secrets.yaml");
    REQUIRE(secret["kind"].as<std::string>() == "Secret");
    std::string environment;
    int secrets = 0;
    for (const auto& entry : secret["stringData"]) {
        const auto name = entry.first.as<std::string>();
        // The shipped key is a placeholder on purpose; a real one is 32 bytes of hex.
        const std::string value =
            name == "ORCHESTRATOR_AUTH__TOKEN_KEY" ? std::string(64, 'a') : entry.second.as<std::string>();
        environment += name + "='" + value + "' ";
        ++secrets;
    }
    CHECK(secrets >= 3);
    const auto res =
        Run(environment + "ORCHESTRATOR_INSTANCE_ID=orchestrator-0 ORCHESTRATOR_PLACEMENT__CATALOGUE__PATH=" + dir +
            "/catalogue.yaml ORCHESTRATOR_PLACEMENT__SLA__PATH=" + dir + "/sla.yaml " + orch::test::BinaryDir() +
            "/bin/orchestrator --config " + dir + "/orchestrator.yaml --check-config 2>&1");
    INFO(res.output);
    CHECK(res.status == 0);
    CHECK(res.output.find("configuration OK") != std::string::npos);
}

TEST_CASE("the runtime image has a package for every library the binaries link directly", "[packaging]") {
    const auto packages = RuntimePackages();
    for (const char* name : {"orchestrator", "site-sim"}) {
        const std::string binary = orch::test::BinaryDir() + "/bin/" + name;
        const auto needed = Run("readelf -d " + binary + " | sed -n 's/.*NEEDED.*\\[\\(.*\\)\\]/\\1/p'");
        REQUIRE(needed.status == 0);
        std::istringstream lines(needed.output);
        std::string library;
        int checked = 0;
        while (std::getline(lines, library)) {
            const std::string package = PackageOf(binary, library);
            INFO(name << " links " << library << " from " << package);
            CHECK(packages.count(package) == 1);
            ++checked;
        }
        CHECK(checked >= 5);
    }
}

TEST_CASE(
    "cmake --install lays out the binaries and the types profile, and the installed binary uses it", "[packaging]"
) {
    // A prefix outside the source tree, as a package or the image (Dockerfile) installs it.
    const std::string prefix = orch::test::BinaryDir() + "/test-install-" + std::to_string(::getpid());
    std::filesystem::remove_all(prefix);
    const auto installed = Run("cmake --install " + orch::test::BinaryDir() + " --prefix " + prefix + " 2>&1");
    INFO(installed.output);
    REQUIRE(installed.status == 0);
    const std::string profiles = prefix + "/share/orchestrator/tosca/profiles/";
    const std::string profile = profiles + "v1/orchestrator.yaml";
    REQUIRE(std::filesystem::exists(prefix + "/bin/orchestrator"));
    REQUIRE(std::filesystem::exists(prefix + "/bin/tosca-check"));
    REQUIRE(std::filesystem::exists(profile));
    CHECK_FALSE(std::filesystem::exists(profiles + "examples"));  // examples are docs, not types
    const std::string shipped = orch::test::ReadFile(profile);
    CHECK(shipped == orch::test::ReadFile(orch::test::SourceDir() + "/tosca/profiles/v1/orchestrator.yaml"));

    // The installed binary, its config mapping the profile's URL onto the installed folder (as
    // docs/operations.md tells operators), run from the prefix.
    orch::test::TestDatabase db;
    const std::string etc = prefix + "/etc";
    std::filesystem::create_directories(etc);
    std::ofstream(etc + "/catalogue.yaml") << "providers: []\n";
    std::ofstream(etc + "/sla.yaml") << "{}\n";
    std::ofstream(etc + "/orchestrator.yaml")
        << "auth:\n  mode: disabled\ntosca:\n  mirrors:\n    \"https://paas.example.org/types/\": " << profiles
        << "\nplacement:\n  catalogue: {type: file, path: " << etc
        << "/catalogue.yaml}\n  sla: {type: file, path: " << etc << "/sla.yaml}\n";
    const int port = orch::test::FreePort();
    const std::string base = "http://127.0.0.1:" + std::to_string(port);
    orch::test::ChildProcess process(
        prefix + "/bin/orchestrator",
        {"--config", etc + "/orchestrator.yaml"},
        {{"ORCHESTRATOR_DB_URL", db.dsn()}, {"ORCHESTRATOR_LISTEN", "127.0.0.1:" + std::to_string(port)}},
        prefix + "/orchestrator.log"
    );
    INFO(process.Log());
    REQUIRE(orch::test::WaitForStatus(base + "/readyz", 200, std::chrono::seconds(20)));
    auto client = orch::http::MakeClient({});
    REQUIRE(client);
    const auto call = [&](const std::string& method, const std::string& path, const std::string& body) {
        orch::http::ClientRequest request;
        request.method = method;
        request.url = base + path;
        request.body = body;
        request.headers = {{"Content-Type", "application/json"}};
        request.timeout = std::chrono::seconds(10);
        auto response = (*client)->Send(request);
        REQUIRE(response);
        return *response;
    };
    // It serves the same bytes the package installed...
    const auto served = call("GET", "/types/v1/orchestrator.yaml", "");
    CHECK(served.status == 200);
    CHECK(served.body == shipped);
    // ...and a template importing the profile by its URL is read from the installed folder.
    const std::string tmpl =
        "tosca_definitions_version: tosca_simple_yaml_1_0\nimports:\n"
        "  - orchestrator: https://paas.example.org/types/v1/orchestrator.yaml\n"
        "topology_template:\n  node_templates:\n    web:\n      type: tosca.nodes.indigo.Kubernetes.Deployment\n"
        "      artifacts:\n        image: {file: nginx, type: tosca.artifacts.Deployment.Image.Container.Docker}\n";
    const auto created =
        call("POST", "/deployments", orch::Json{{"template", tmpl}, {"parameters", orch::Json::object()}}.dump());
    INFO(created.body);
    CHECK(created.status == 201);
    // The installed tosca-check, from outside the source tree, resolves it the same way.
    std::ofstream(prefix + "/web.yaml") << tmpl;
    const auto checked =
        Run("cd " + prefix + " && bin/tosca-check --mirror https://paas.example.org/types/=" + profiles +
            " web.yaml 2>&1");
    INFO(checked.output);
    CHECK(checked.status == 0);
    CHECK(checked.output.find("KUBERNETES") != std::string::npos);
    std::filesystem::remove_all(prefix);
}
