// libFuzzer target for the TOSCA engine: any bytes as a template, checked with and without
// user inputs; the error message, the tosca-check report and output resolution are rendered too.
// The same bytes are also loaded by both YAML parsers: whenever the fast loader accepts a text,
// its tree and findings must be exactly yaml-cpp's (a difference aborts, as a crash would). A spec
// holding far more memory than its template is an amplification and aborts too.
// Built and run by tests/fuzz/run-tosca-fuzz (clang, -fsanitize=fuzzer,address,undefined).
#include "tosca/engine.hpp"
#include "tosca/outputs.hpp"
#include "tosca/report.hpp"
#include "tosca/spec_footprint.hpp"
#include "yaml/loader.hpp"
#include "yaml/tree_diff.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

const orch::tosca::TemplateEngine& Engine() {
    static const orch::tosca::TemplateEngine engine = [] {
        orch::tosca::EngineOptions options;
        // Imports of the INDIGO types resolve through the corpus mirror, as in the tests.
        if (const char* corpus = std::getenv("TOSCA_FUZZ_CORPUS_DIR"); corpus != nullptr) {
            options.mirrors.push_back(
                {"https://raw.githubusercontent.com/indigo-dc/tosca-types/",
                 std::string(corpus) + "/indigo-dc-tosca-types/refs/"}
            );
        }
        options.limits.max_document_bytes = 256 * 1024;
        return orch::tosca::TemplateEngine(options);
    }();
    return engine;
}

/// Aborts when the fast YAML loader accepts `text` but builds something else than yaml-cpp.
void CheckParsersAgree(std::string_view text) {
    using orch::tosca::yaml::YamlParser;
    orch::tosca::yaml::LoadLimits limits;
    limits.max_bytes = 256 * 1024;
    orch::tosca::DiagSink fast_sink;
    const auto fast = orch::tosca::yaml::LoadYamlWith(YamlParser::kFastOnly, text, "fuzz.yaml", limits, fast_sink);
    if (!fast) {
        return;
    }
    orch::tosca::DiagSink reference_sink;
    const auto reference =
        orch::tosca::yaml::LoadYamlWith(YamlParser::kYamlCpp, text, "fuzz.yaml", limits, reference_sink);
    const std::string difference =
        orch::tosca::yaml::FirstDifference({reference->root, reference_sink.Take()}, {fast->root, fast_sink.Take()});
    if (!difference.empty()) {
        std::fprintf(stderr, "the fast YAML loader disagrees with yaml-cpp: %s\n", difference.c_str());
        std::abort();
    }
}

/// Aborts when a spec holds far more memory than its template could without amplification:
/// aliases and get_input/get_property share a value that the spec copies once per reference, and
/// the engine's expansion budget must have refused that. The factor leaves room for what a
/// template legitimately adds (type chains, defaults, capabilities per node).
void CheckNotAmplified(std::size_t input_bytes, const orch::tosca::DeploymentSpec& spec) {
    constexpr std::size_t kFactor = 512;
    const std::size_t bound = kFactor * std::max<std::size_t>(input_bytes, 64 * 1024);
    if (const std::size_t held = orch::tosca::ApproxMemoryBytes(spec); held > bound) {
        std::fprintf(stderr, "a %zu-byte template built a spec of %zu bytes: amplification\n", input_bytes, held);
        std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    CheckParsersAgree(text);
    orch::tosca::TemplateRequest request;
    if (size > 0 && (data[0] & 1) != 0) {
        request.inputs = orch::Json::object();  // the create-request path: inputs checked
    }
    const orch::tosca::TemplateCheck check = Engine().Check(text, request);
    (void)check.ErrorMessage();
    (void)orch::tosca::CheckReport(check).dump(-1, ' ', false, orch::Json::error_handler_t::replace);
    if (check.spec) {
        CheckNotAmplified(size, *check.spec);
        (void)orch::tosca::EvaluateOutputs(*check.spec, {});
        (void)check.spec->WorkloadNodes();
    }
    return 0;
}
