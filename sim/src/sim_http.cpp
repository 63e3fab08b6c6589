#include "sim/sim_http.hpp"

namespace orch::sim {

std::optional<std::string> SimRequest::Query(std::string_view name) const {
    for (const auto& [key, value] : query) {
        if (key == name) {
            return value;
        }
    }
    return std::nullopt;
}

std::vector<std::string> SimRequest::QueryAll(std::string_view name) const {
    std::vector<std::string> out;
    for (const auto& [key, value] : query) {
        if (key == name) {
            out.push_back(value);
        }
    }
    return out;
}

SimResponse SimResponse::JsonBody(int status, const Json& body) {
    SimResponse r;
    r.status = status;
    r.body = body.dump(-1, ' ', false, Json::error_handler_t::replace);
    return r;
}

SimResponse SimResponse::Text(int status, std::string body) {
    SimResponse r;
    r.status = status;
    r.body = std::move(body);
    r.content_type = "text/plain";
    return r;
}

SimResponse SimResponse::Empty(int status) {
    SimResponse r;
    r.status = status;
    r.content_type.clear();
    return r;
}

std::vector<std::pair<std::string, std::string>> ParseQueryString(std::string_view query) {
    std::vector<std::pair<std::string, std::string>> out;
    std::size_t pos = 0;
    while (pos <= query.size() && !query.empty()) {
        const auto amp = query.find('&', pos);
        const auto part = query.substr(pos, amp == std::string_view::npos ? std::string_view::npos : amp - pos);
        if (!part.empty()) {
            const auto eq = part.find('=');
            out.emplace_back(
                http::UrlDecode(part.substr(0, eq), true),
                eq == std::string_view::npos ? std::string() : http::UrlDecode(part.substr(eq + 1), true)
            );
        }
        if (amp == std::string_view::npos) {
            break;
        }
        pos = amp + 1;
    }
    return out;
}

SimRequest MakeSimRequest(std::string method, std::string_view target, std::string body, http::Headers headers) {
    SimRequest request;
    request.method = std::move(method);
    const auto q = target.find('?');
    request.path = http::UrlDecode(target.substr(0, q), false);
    if (q != std::string_view::npos) {
        request.query = ParseQueryString(target.substr(q + 1));
    }
    request.body = std::move(body);
    request.headers = std::move(headers);
    return request;
}

}  // namespace orch::sim
