// YAML alias amplification through the API: a ~120 KB template whose 100 KB scalar is referenced
// thousands of times. Aliases used to be counted as nodes only, so the template passed the node
// limit and its metadata expanded to hundreds of megabytes when copied to JSON (and stayed in the
// parsed-template cache). It must get a 400 at once, with the server's peak memory barely moved.
#include "../ops/ops_env.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace {

using orch::Json;
using orch::test::ops::OpsApi;

/// A kilobyte-counted field ("VmHWM:", "VmRSS:") of /proc/<pid>/status.
long StatusKiB(pid_t pid, const std::string& field) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind(field, 0) == 0) {
            return std::stol(line.substr(field.size()));
        }
    }
    return -1;
}

/// Valid TOSCA apart from its size once expanded: a 100 KB scalar in metadata, referenced
/// `references` times (2,000 x 100 KB = 200 MB expanded; a few thousand nodes, under every node limit).
std::string AliasBomb(std::size_t references) {
    std::string text = "tosca_definitions_version: tosca_simple_yaml_1_0\nmetadata:\n  big: &big ";
    text += std::string(100'000, 'x');
    text += "\n  copies:\n";
    for (std::size_t i = 0; i < references; ++i) {
        text += "    - *big\n";
    }
    text += "topology_template:\n  node_templates:\n    vm:\n      type: tosca.nodes.Compute\n";
    return text;
}

void CheckRefused(const orch::http::ClientResponse& response) {
    INFO(response.body.substr(0, 2000));
    CHECK(response.status == 400);
    const Json body = Json::parse(response.body, nullptr, false);
    CHECK(body.is_object());
    CHECK(body.contains("code"));
    CHECK(body.contains("title"));
    const std::string message = body.is_object() ? body.value("message", "") : "";
    CHECK(message.find("aliases expand the document") != std::string::npos);
    CHECK(message.find("metadata.copies[") != std::string::npos);  // where, as a path
}

}  // namespace

TEST_CASE(
    "an alias bomb gets 400 at once from POST /placement and POST /deployments, memory stays bounded",
    "[security][yaml]"
) {
    OpsApi api;
    const pid_t pid = api.process().pid();
    REQUIRE(api.Create().status == 201);  // warm up: pools, threads, the normative types
    const long peak_before = StatusKiB(pid, "VmHWM:");
    REQUIRE(peak_before > 0);

    const std::string body = Json{{"template", AliasBomb(2'000)}}.dump();
    REQUIRE(body.size() < 150'000);
    // Memory first, answers after: the peak must be bounded whatever the server answered.
    std::vector<std::pair<std::string, orch::http::ClientResponse>> answers;
    for (const char* path : {"/placement", "/deployments"}) {
        for (int round = 0; round < 3; ++round) {
            const auto started = std::chrono::steady_clock::now();
            auto response = api.Call("POST", path, body);
            const auto took = std::chrono::steady_clock::now() - started;
            INFO(path << " round " << round);
            CHECK(took < std::chrono::seconds(2));
            answers.emplace_back(path, std::move(response));
        }
    }
    const long peak_after = StatusKiB(pid, "VmHWM:");
    INFO("peak RSS before " << peak_before << " KiB, after " << peak_after << " KiB");
    CHECK(peak_after - peak_before < 64 * 1024);
    for (const auto& [path, response] : answers) {
        INFO(path);
        CheckRefused(response);
    }
    CHECK(api.process().Running());
    CHECK(api.Call("GET", "/healthz", "", {}).status == 200);
}
