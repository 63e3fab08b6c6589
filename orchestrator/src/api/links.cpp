#include "orchestrator/api/links.hpp"

#include <cctype>

#include "common/http_client.hpp"

namespace orch::api {

std::string BaseUrl(const server::Request& request, const std::string& external_base_url) {
    if (!external_base_url.empty()) {
        return external_base_url;
    }
    const auto first = [](std::string v) {
        // Proxies may append: "a, b" — the first hop is the client-facing one.
        const auto comma = v.find(',');
        if (comma != std::string::npos) {
            v.resize(comma);
        }
        while (!v.empty() && v.back() == ' ') {
            v.pop_back();
        }
        return v;
    };
    std::string proto = first(request.Header("X-Forwarded-Proto"));
    if (proto.empty()) {
        proto = "http";
    }
    std::string host = first(request.Header("X-Forwarded-Host"));
    if (host.empty()) {
        host = request.Header("Host");
    }
    if (host.empty()) {
        host = "localhost";
    }
    const std::string port = first(request.Header("X-Forwarded-Port"));
    const bool host_has_port = host.find(':') != std::string::npos && host.back() != ']';
    if (!port.empty()) {
        if (host_has_port) {
            host.resize(host.rfind(':'));
        }
        const bool default_port = (proto == "http" && port == "80") || (proto == "https" && port == "443");
        if (!default_port) {
            host += ":" + port;
        }
    }
    std::string prefix = first(request.Header("X-Forwarded-Prefix"));
    while (!prefix.empty() && prefix.back() == '/') {
        prefix.pop_back();
    }
    if (!prefix.empty() && prefix.front() != '/') {
        prefix.insert(0, "/");
    }
    return proto + "://" + host + prefix;
}

std::string QueryValue(const std::string& value) {
    for (char ch : value) {
        const auto c = static_cast<unsigned char>(ch);
        if (std::isalnum(c) == 0 && std::string_view("-_.~@:/").find(ch) == std::string_view::npos) {
            return http::UrlEncode(value);
        }
    }
    return value;
}

Json PageLinks(const std::string& self_href, const std::string& nav_base, int page, int size, std::int64_t total,
               const std::string& sort) {
    const std::int64_t pages = size > 0 ? (total + size - 1) / size : 0;
    const char sep = nav_base.find('?') == std::string::npos ? '?' : '&';
    const auto nav = [&](std::int64_t p) {
        return nav_base + sep + "page=" + std::to_string(p) + "&size=" + std::to_string(size) + "&sort=" + sort;
    };
    Json links = Json::array();
    if (pages > 1) {
        links.push_back({{"rel", "first"}, {"href", nav(0)}});
    }
    if (page > 0 && pages > 0) {
        links.push_back({{"rel", "prev"}, {"href", nav(std::min<std::int64_t>(page - 1, pages - 1))}});
    }
    links.push_back({{"rel", "self"}, {"href", self_href}});
    if (page + 1 < pages) {
        links.push_back({{"rel", "next"}, {"href", nav(page + 1)}});
    }
    if (pages > 1) {
        links.push_back({{"rel", "last"}, {"href", nav(pages - 1)}});
    }
    return links;
}

Json PageBody(Json links, Json content, int page, int size, std::int64_t total) {
    const std::int64_t pages = size > 0 ? (total + size - 1) / size : 0;
    return Json{{"links", std::move(links)},
                {"content", std::move(content)},
                {"page", {{"size", size}, {"totalElements", total}, {"totalPages", pages}, {"number", page}}}};
}

}  // namespace orch::api
