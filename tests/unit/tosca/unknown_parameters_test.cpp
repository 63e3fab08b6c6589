// Parameters that name no input of the template (issue 19): refused with the closest input, or
// let through under tosca.unknown_parameters: ignore and when accepted earlier.
#include "tosca_test_util.hpp"
#include "util/closest_name.hpp"

#include <catch2/catch.hpp>

#include <chrono>

namespace orch::tosca {
namespace {

using test::Check;
using test::Find;
using test::Template;

const std::string& GpuTemplate() {
    static const std::string text = Template(
        "    vm:\n      type: tosca.nodes.indigo.Compute\n      capabilities: {host: {properties: {num_cpus: "
        "{get_input: num_cpus}, num_gpus: {get_input: num_gpus}}}}\n",
        "    num_cpus: {type: integer, default: 1}\n    num_gpus: {type: integer, default: 1}\n"
        "    flavour: {type: string, required: false}\n"
    );
    return text;
}

TemplateCheck CheckWith(const EngineOptions& options, const Json& parameters, const Json* accepted = nullptr) {
    const TemplateEngine engine(options);
    TemplateRequest request;
    request.inputs = parameters;
    request.accepted_parameters = accepted;
    return engine.Check(GpuTemplate(), request);
}

TEST_CASE("an unknown parameter is refused naming the closest input", "[tosca][engine][parameters]") {
    const auto check = Check(GpuTemplate(), Json::parse(R"({"num_gpu": 2})"));
    REQUIRE_FALSE(check.valid());
    CHECK(check.ErrorMessage() == "Parameter 'num_gpu' is not an input of the template; did you mean 'num_gpus'?");
    CHECK(Find(check, "num_gpu", "parameters.num_gpu")->code == DiagnosticCode::kUnknownParameter);
    // A transposition and a letter case are one edit / none.
    CHECK(
        Check(GpuTemplate(), Json::parse(R"({"falvour": "x"})")).ErrorMessage() ==
        "Parameter 'falvour' is not an input of the template; did you mean 'flavour'?"
    );
    CHECK(
        Check(GpuTemplate(), Json::parse(R"({"NUM_CPUS": 2})")).ErrorMessage() ==
        "Parameter 'NUM_CPUS' is not an input of the template; did you mean 'num_cpus'?"
    );
}

TEST_CASE("nothing close: no suggestion", "[tosca][engine][parameters]") {
    CHECK(
        Check(GpuTemplate(), Json::parse(R"({"colour": "red"})")).ErrorMessage() ==
        "Parameter 'colour' is not an input of the template"
    );
}

TEST_CASE("unknown parameters and missing inputs are listed together", "[tosca][engine][parameters]") {
    const std::string text = Template(
        "    vm:\n      type: tosca.nodes.indigo.Compute\n      capabilities: {host: {properties: {num_cpus: "
        "{get_input: cpus}}}}\n",
        "    cpus: {type: integer}\n"
    );
    CHECK(
        Check(text, Json::parse(R"({"cpu": 2})")).ErrorMessage() ==
        "Input cpus is required and is not present in the user's input list, nor has a default value\n"
        "Parameter 'cpu' is not an input of the template; did you mean 'cpus'?"
    );
}

TEST_CASE("unknown_parameters: ignore keeps the original's silence", "[tosca][engine][parameters]") {
    EngineOptions options = test::CorpusOptions();
    options.unknown_parameters = UnknownParameters::kIgnore;
    const auto check = CheckWith(options, Json::parse(R"({"num_gpu": 2})"));
    REQUIRE(check.valid());
    CHECK(Find(check, "parameter 'num_gpu' is not an input of the template (ignored)", "", Severity::kWarning));
    REQUIRE(check.spec);
    CHECK(check.spec->accepted_unknown_parameters.empty());
}

TEST_CASE("parameters accepted earlier are not refused again", "[tosca][engine][parameters]") {
    const Json stored = Json::parse(R"({"num_gpus": 1, "legacy": true})");
    const auto check = CheckWith(test::CorpusOptions(), stored, &stored);
    REQUIRE(check.valid());
    REQUIRE(check.spec);
    CHECK(check.spec->accepted_unknown_parameters == std::vector<std::string>{"legacy"});
    // An update adding a new unknown one is refused for that one only.
    const Json merged = Json::parse(R"({"num_gpus": 1, "legacy": true, "num_gpuss": 3})");
    CHECK(
        CheckWith(test::CorpusOptions(), merged, &stored).ErrorMessage() ==
        "Parameter 'num_gpuss' is not an input of the template; did you mean 'num_gpus'?"
    );
}

TEST_CASE("the configuration key reads refuse or ignore", "[tosca][engine][parameters][config]") {
    ConfigTree config;
    CHECK(EngineOptionsFromConfig(config)->unknown_parameters == UnknownParameters::kRefuse);
    config.Set("tosca.unknown_parameters", "ignore");
    CHECK(EngineOptionsFromConfig(config)->unknown_parameters == UnknownParameters::kIgnore);
    config.Set("tosca.unknown_parameters", "warn");
    CHECK_FALSE(EngineOptionsFromConfig(config));
}

TEST_CASE("hostile parameters: long names and many of them stay bounded", "[tosca][engine][parameters][reliability]") {
    Json parameters = Json::object();
    for (int i = 0; i < 20'000; ++i) {
        parameters["num_gpu" + std::to_string(i) + std::string(200, 'x')] = i;
    }
    parameters[std::string(1u << 20, 'n')] = 1;
    const auto start = std::chrono::steady_clock::now();
    const auto check = Check(GpuTemplate(), parameters);
    const auto elapsed = std::chrono::steady_clock::now() - start;
    REQUIRE_FALSE(check.valid());
    const std::string message = check.ErrorMessage();
    // Eight named (each name cut to 64 bytes), one line counting the rest.
    CHECK(message.find("and 19993 more parameters that are not inputs of the template") != std::string::npos);
    CHECK(message.size() < 2'000);
    CHECK(elapsed < std::chrono::seconds(5));
}

TEST_CASE("the bounded edit distance", "[tosca][parameters]") {
    CHECK(BoundedEditDistance("num_gpu", "num_gpus", 2) == 1u);
    CHECK(BoundedEditDistance("abcd", "abdc", 1) == 1u);  // transposition
    CHECK(BoundedEditDistance("Flavour", "flavour", 0) == 0u);
    CHECK_FALSE(BoundedEditDistance("colour", "num_cpus", 3));
    CHECK_FALSE(BoundedEditDistance(std::string(65, 'a'), std::string(65, 'a'), 3));  // too long to compare
    CHECK(ClosestName("num_gpu", {"num_cpus", "num_gpus"}) == "num_gpus");
    CHECK_FALSE(ClosestName("ab", {"xy", "cd"}));
}

}  // namespace
}  // namespace orch::tosca
