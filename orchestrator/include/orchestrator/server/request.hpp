#pragma once

#include "common/http_client.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace orch::server {

/// An HTTP request as handlers see it: parsed, bounded, and detached from the socket.
struct Request {
    std::string method;                                      ///< upper case: GET, POST, ...
    std::string target;                                      ///< as sent: path + query
    std::string path;                                        ///< decoded path without the query
    std::vector<std::pair<std::string, std::string>> query;  ///< decoded, in order
    http::Headers headers;
    std::string body;
    std::map<std::string, std::string> path_params;  ///< from "{name}" segments of the route
    std::string request_id;                          ///< "req-<uuid>", also on the response
    std::string remote_address;
    std::string trace_id;        ///< W3C trace id: the caller's traceparent's when valid, else new
    bool trace_sampled = false;  ///< the caller's sampled flag

    std::string Header(std::string_view name) const { return http::FindHeader(headers, name); }
    /// First value of a query parameter, if present (even when empty).
    std::optional<std::string> Query(std::string_view name) const;
    std::vector<std::string> QueryAll(std::string_view name) const;
    std::string PathParam(const std::string& name) const;
};

/// Splits "a=1&b=x%20y" into decoded pairs ('+' is a space, as browsers send it).
std::vector<std::pair<std::string, std::string>> ParseQuery(std::string_view query);

}  // namespace orch::server
