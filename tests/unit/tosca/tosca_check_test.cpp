#include "common/build_info.hpp"
#include "tool_run.hpp"
#include "tosca_test_util.hpp"

#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace orch::tosca {
namespace {

namespace fs = std::filesystem;
using test::Run;
using test::Tool;

std::string Mirror() {
    return std::string(test::kIndigoTypesPrefix) + "=" + test::CorpusDir() + "/indigo-dc-tosca-types/refs/";
}

std::string Corpus(const std::string& relative) {
    return test::CorpusDir() + "/" + relative;
}

const std::string kMarathon = "indigo-dc-orchestrator/src/test/resources/tosca/marathon_app.yaml";
const std::string kTypo = "indigo-dc-orchestrator/src/test/resources/tosca/galaxy_tosca_clues_error.yaml";

TEST_CASE("tosca-check: exit 0 for valid templates, 1 when any is invalid, human lines", "[tosca][tosca-check]") {
    const Run valid = Tool({"--mirror", Mirror(), Corpus(kMarathon)});
    CHECK(valid.status == 0);
    CHECK(valid.out.find(Corpus(kMarathon) + ": valid (MARATHON, 2 node(s)") != std::string::npos);
    const Run invalid = Tool({"--mirror", Mirror(), Corpus(kMarathon), Corpus(kTypo)});
    CHECK(invalid.status == 1);
    CHECK(
        invalid.out.find(
            Corpus(kTypo) + ":56:13: error: topology_template.node_templates.torque_wn.type: unknown node type "
                            "tosca.nodes.indigo.Comput"
        ) != std::string::npos
    );
    CHECK(invalid.out.find(Corpus(kTypo) + ": invalid (1 error(s)") != std::string::npos);
    // The mirror may come from ORCHESTRATOR_TOSCA_MIRRORS instead.
    CHECK(Tool({Corpus(kMarathon)}, Mirror()).status == 0);
    CHECK(Tool({Corpus(kMarathon)}).status == 3);  // no mirror: the import is refused
}

TEST_CASE("tosca-check --json: one object per template and line", "[tosca][tosca-check]") {
    const Run run = Tool({"--json", "--mirror", Mirror(), Corpus(kMarathon), Corpus(kTypo)});
    CHECK(run.status == 1);
    std::istringstream lines(run.out);
    std::string first;
    std::string second;
    std::getline(lines, first);
    std::getline(lines, second);
    const Json a = Json::parse(first);
    const Json b = Json::parse(second);
    CHECK(a["file"] == Corpus(kMarathon));
    CHECK(a["valid"] == true);
    CHECK(a["kind"] == "MARATHON");
    REQUIRE(a["nodes"].size() == 2);
    const Json& docker = a["nodes"][0]["name"] == "Docker" ? a["nodes"][0] : a["nodes"][1];
    CHECK(
        docker["requirements"] ==
        Json::parse(R"({"cpus":1.0,"mem_mb":1000,"disk_mb":null,"gpus":0,"gpu_vendor":null,"gpu_model":null})")
    );
    CHECK(b["valid"] == false);
    CHECK(b["kind"].is_null());
    bool found = false;
    for (const auto& e : b["errors"]) {
        if (e["severity"] == "error") {
            found = true;
            CHECK(e["line"] == 56);
            CHECK(e["column"] == 13);
            CHECK(e["path"] == "topology_template.node_templates.torque_wn.type");
            CHECK(e["file"] == Corpus(kTypo));
        }
    }
    CHECK(found);
}

TEST_CASE("tosca-check --inputs evaluates like a create request, --strict applies the spec", "[tosca][tosca-check]") {
    const fs::path inputs = fs::temp_directory_path() / ("tosca-check-inputs-" + std::to_string(::getpid()) + ".json");
    std::ofstream(inputs) << "{}";
    const std::string required =
        Corpus("indigo-dc-orchestrator/src/test/resources/tosca/inputs/tosca_inputs_required_not_given.yaml");
    CHECK(Tool({required}).status == 0);
    const Run with_inputs = Tool({"--inputs", inputs.string(), required});
    CHECK(with_inputs.status == 1);
    CHECK(
        with_inputs.out.find(
            "Input cpus is required and is not present in the user's input list, nor has a default value"
        ) != std::string::npos
    );
    std::ofstream(inputs) << "{\"cpus\": 4}";
    CHECK(Tool({"--inputs", inputs.string(), required}).status == 0);
    std::ofstream(inputs) << "[1]";
    CHECK(Tool({"--inputs", inputs.string(), required}).status == 4);
    std::ofstream(inputs) << "{oops";
    CHECK(Tool({"--inputs", inputs.string(), required}).status == 4);
    fs::remove(inputs);
    const std::string floats = Corpus("indigo-dc-tosca-templates/deep-oc/deep-oc-dogs_breed.yml");
    CHECK(Tool({"--mirror", Mirror(), floats}).status == 0);
    CHECK(Tool({"--strict", "--mirror", Mirror(), floats}).status == 1);  // "1" is not a float
}

TEST_CASE("tosca-check: usage errors exit 2, unreadable files 4", "[tosca][tosca-check]") {
    CHECK(Tool({}).status == 2);
    CHECK(Tool({"--frobnicate", "x.yaml"}).status == 2);
    CHECK(Tool({"--mirror"}).status == 2);
    CHECK(Tool({"--mirror", "no-equals-sign", "x.yaml"}).status == 2);
    CHECK(Tool({"--inputs", "/nonexistent/inputs.json", "x.yaml"}).status == 4);
    const Run missing = Tool({"/nonexistent/template.yaml"});
    CHECK(missing.status == 4);
    CHECK(missing.err.find("cannot read /nonexistent/template.yaml") != std::string::npos);
    const Run help = Tool({"--help"});
    CHECK(help.status == 0);
    CHECK(help.out.find("usage: tosca-check") != std::string::npos);
}

TEST_CASE("tosca-check --version prints the build's version and commit", "[tosca][tosca-check]") {
    const Run version = Tool({"--version"});
    CHECK(version.status == 0);
    const auto info = orch::GetBuildInfo();
    CHECK(version.out == "tosca-check " + std::string(info.version) + " (" + std::string(info.git_commit) + ")\n");
    CHECK(Tool({"--version=1"}).status == 2);  // takes no value
}

}  // namespace
}  // namespace orch::tosca
