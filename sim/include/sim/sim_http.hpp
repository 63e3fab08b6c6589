#pragma once

#include "common/http_client.hpp"
#include "common/json.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace orch::sim {

/// A request as the simulators see it, independent of any HTTP server (so they can be driven
/// directly by unit tests and by a fake http::Client).
struct SimRequest {
    std::string method;  ///< upper case
    std::string path;    ///< decoded path, no query
    std::vector<std::pair<std::string, std::string>> query;
    http::Headers headers;
    std::string body;

    std::optional<std::string> Query(std::string_view name) const;
    std::vector<std::string> QueryAll(std::string_view name) const;
    std::string Header(std::string_view name) const { return http::FindHeader(headers, name); }
};

/// What a simulator answers. `reset` and `delay` carry injected faults to the transport.
struct SimResponse {
    int status = 200;
    std::string body;
    std::string content_type = "application/json";
    http::Headers headers;
    bool reset = false;                  ///< close the connection without answering
    std::chrono::milliseconds delay{0};  ///< wait this long before answering

    static SimResponse JsonBody(int status, const Json& body);
    static SimResponse Text(int status, std::string body);
    static SimResponse Empty(int status);
};

/// Splits "a=1&b=x%20y" into decoded pairs.
std::vector<std::pair<std::string, std::string>> ParseQueryString(std::string_view query);

/// Builds a SimRequest from a method and a target ("/v2/apps/x?embed=y").
SimRequest MakeSimRequest(
    std::string method, std::string_view target, std::string body = {}, http::Headers headers = {}
);

}  // namespace orch::sim
