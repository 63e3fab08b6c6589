// libFuzzer target for the TOSCA engine: any bytes as a template, checked with and without
// user inputs; the error message, the tosca-check report and output resolution are rendered too.
// Built and run by tests/fuzz/run-tosca-fuzz (clang, -fsanitize=fuzzer,address,undefined).
#include "tosca/engine.hpp"
#include "tosca/outputs.hpp"
#include "tosca/report.hpp"

#include <cstddef>
#include <cstdint>
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    orch::tosca::TemplateRequest request;
    if (size > 0 && (data[0] & 1) != 0) {
        request.inputs = orch::Json::object();  // the create-request path: inputs checked
    }
    const orch::tosca::TemplateCheck check = Engine().Check(text, request);
    (void)check.ErrorMessage();
    (void)orch::tosca::CheckReport(check).dump(-1, ' ', false, orch::Json::error_handler_t::replace);
    if (check.spec) {
        (void)orch::tosca::ResolveOutputs(*check.spec, {});
        (void)check.spec->WorkloadNodes();
    }
    return 0;
}
