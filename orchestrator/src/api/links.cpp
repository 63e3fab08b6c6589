#include "orchestrator/api/links.hpp"

#include <algorithm>
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

namespace {

void WritePageLinks(JsonWriter& w, const PageNav& nav) {
    const std::int64_t pages = nav.size > 0 ? (nav.total + nav.size - 1) / nav.size : 0;
    const char sep = nav.nav_base.find('?') == std::string::npos ? '?' : '&';
    std::string href;
    const auto link = [&](std::string_view rel, std::int64_t p) {
        href.assign(nav.nav_base).push_back(sep);
        href.append("page=").append(std::to_string(p));
        href.append("&size=").append(std::to_string(nav.size));
        href.append("&sort=").append(nav.sort);
        w.BeginObject().Member("href", href).Member("rel", rel).EndObject();
    };
    w.Key("links").BeginArray();
    if (pages > 1) {
        link("first", 0);
    }
    if (nav.page > 0 && pages > 0) {
        link("prev", std::min<std::int64_t>(nav.page - 1, pages - 1));
    }
    w.BeginObject().Member("href", nav.self_href).Member("rel", "self").EndObject();
    if (nav.page + 1 < pages) {
        link("next", nav.page + 1);
    }
    if (pages > 1) {
        link("last", pages - 1);
    }
    w.EndArray();
}

}  // namespace

std::string PageBody(
    const PageNav& nav, const std::function<void(JsonWriter&)>& write_items, std::size_t expected_bytes
) {
    // Members in key order (content, links, page): the bytes of the nlohmann tree this was.
    std::string body;
    body.reserve(expected_bytes);
    JsonWriter w(body);
    w.BeginObject().Key("content").BeginArray();
    write_items(w);
    w.EndArray();
    WritePageLinks(w, nav);
    const std::int64_t pages = nav.size > 0 ? (nav.total + nav.size - 1) / nav.size : 0;
    w.Key("page")
        .BeginObject()
        .Member("number", std::int64_t{nav.page})
        .Member("size", std::int64_t{nav.size})
        .Member("totalElements", nav.total)
        .Member("totalPages", pages)
        .EndObject();
    w.EndObject();
    return body;
}

}  // namespace orch::api
