// libFuzzer target for the deployment request parser (POST/PUT /deployments, POST /placement):
// any bytes as the JSON body, with and without a JSON content type. Built and run by
// tests/fuzz/run-fuzz (clang, -fsanitize=fuzzer,address,undefined).
#include "orchestrator/api/deployment_request.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    orch::server::Request request;
    request.method = "POST";
    request.path = "/deployments";
    // The first byte picks the content type, so the 415 path and charset variants are reached too.
    const char* types[] = {"application/json", "application/json;charset=UTF-8", "text/plain", ""};
    request.headers.emplace_back("Content-Type", types[size > 0 ? data[0] % 4 : 0]);
    request.body.assign(reinterpret_cast<const char*>(data), size);
    auto parsed = orch::api::ParseDeploymentRequest(request);
    if (parsed) {
        // Touch what handlers read, so a value that parses but is malformed inside shows up.
        (void)parsed->template_text.size();
        (void)parsed->parameters.dump(-1, ' ', false, orch::Json::error_handler_t::replace);
        (void)parsed->raw.dump(-1, ' ', false, orch::Json::error_handler_t::replace);
    } else {
        (void)parsed.error().message.size();
    }
    return 0;
}
