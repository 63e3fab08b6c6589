// libFuzzer target for the API edge of POST/PUT /deployments (and POST /placement, /schedules):
// the query string and the JSON body, with and without a JSON content type, through what the
// server and the handlers run before anything is stored — the request checks (NUL, UTF-8,
// repeated headers), the body parser and the callback's egress check. Built and run by
// tests/fuzz/run-fuzz (clang, -fsanitize=fuzzer,address,undefined).
//
// Invariants beside "no crash": every refusal is a 4xx (never a 5xx: bad input is the user's
// mistake), and whatever is accepted is storable text (UTF-8, no NUL), so what the database
// stores is what was validated.
//
// Input layout: an input starting with '?' is a query string up to the first '\n' (raw,
// percent-decoded as the server does) followed by a JSON body sent as application/json; any
// other input is the body alone and its first byte picks the content type (the older seeds).
#include "common/utf8.hpp"
#include "orchestrator/api/deployment_request.hpp"
#include "orchestrator/api/input_checks.hpp"
#include "orchestrator/server/request_checks.hpp"
#include "orchestrator/server/response.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

void Require(bool invariant) {
    if (!invariant) {
        std::abort();
    }
}

void RequireClientError(const orch::Error& error) {
    const auto response = orch::server::Response::Error(error);
    Require(response.status >= 400 && response.status < 500);
}

bool StorableJson(const orch::Json& value) {
    if (value.is_string()) {
        return orch::IsStorableText(value.get_ref<const std::string&>());
    }
    if (value.is_object()) {
        for (const auto& [key, member] : value.items()) {
            if (!orch::IsStorableText(key) || !StorableJson(member)) {
                return false;
            }
        }
    } else if (value.is_array()) {
        for (const auto& element : value) {
            if (!StorableJson(element)) {
                return false;
            }
        }
    }
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);  // NOLINT: fuzzer bytes
    std::string_view query;
    std::string_view body = input;
    // The first byte picks the content type, so the 415 path and charset variants are reached too.
    const char* types[] = {"application/json", "application/json;charset=UTF-8", "text/plain", ""};
    const char* type = types[size > 0 ? data[0] % 4 : 0];
    if (!input.empty() && input.front() == '?') {
        const auto newline = input.find('\n');
        query = input.substr(1, newline == std::string_view::npos ? std::string_view::npos : newline - 1);
        body = newline == std::string_view::npos ? std::string_view() : input.substr(newline + 1);
        type = types[0];
    }

    orch::server::Request request;
    request.method = "POST";
    request.path = "/deployments";
    request.target = "/deployments?" + std::string(query);
    request.query = orch::server::ParseQuery(query);
    request.headers.emplace_back("Content-Type", type);
    request.body.assign(body);

    if (auto checked = orch::server::CheckRequest(request); !checked) {
        RequireClientError(checked.error());
        return 0;
    }
    for (const auto& [key, value] : request.query) {
        Require(orch::IsStorableText(key) && orch::IsStorableText(value));
    }
    auto parsed = orch::api::ParseDeploymentRequest(request);
    if (!parsed) {
        RequireClientError(parsed.error());
        return 0;
    }
    if (auto callback = orch::api::CheckCallbackUrl(nullptr, parsed->callback); !callback) {
        RequireClientError(callback.error());
        return 0;
    }
    // Accepted: every text that reaches the store is the text that was validated.
    Require(orch::IsStorableText(parsed->template_text));
    Require(orch::IsStorableText(parsed->callback));
    Require(!parsed->user_group || orch::IsStorableText(*parsed->user_group));
    Require(StorableJson(parsed->parameters));
    Require(StorableJson(parsed->raw));
    return 0;
}
