#include "orchestrator/server/request.hpp"

namespace orch::server {

std::optional<std::string> Request::Query(std::string_view name) const {
    for (const auto& [key, value] : query) {
        if (key == name) {
            return value;
        }
    }
    return std::nullopt;
}

std::vector<std::string> Request::QueryAll(std::string_view name) const {
    std::vector<std::string> out;
    for (const auto& [key, value] : query) {
        if (key == name) {
            out.push_back(value);
        }
    }
    return out;
}

std::string Request::PathParam(const std::string& name) const {
    const auto it = path_params.find(name);
    return it == path_params.end() ? std::string() : it->second;
}

std::vector<std::pair<std::string, std::string>> ParseQuery(std::string_view query) {
    std::vector<std::pair<std::string, std::string>> out;
    while (!query.empty()) {
        const auto amp = query.find('&');
        const std::string_view pair = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
        if (pair.empty()) {
            continue;
        }
        const auto eq = pair.find('=');
        if (eq == std::string_view::npos) {
            out.emplace_back(http::UrlDecode(pair, true), std::string());
        } else {
            out.emplace_back(http::UrlDecode(pair.substr(0, eq), true), http::UrlDecode(pair.substr(eq + 1), true));
        }
    }
    return out;
}

}  // namespace orch::server
