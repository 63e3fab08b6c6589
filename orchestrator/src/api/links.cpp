#include "orchestrator/api/links.hpp"

#include "common/http_client.hpp"

#include <algorithm>
#include <cctype>

namespace orch::api {

namespace {

// Proxies may append: "a, b" — the first hop is the client-facing one.
std::string FirstHop(std::string v) {
    const auto comma = v.find(',');
    if (comma != std::string::npos) {
        v.resize(comma);
    }
    while (!v.empty() && v.back() == ' ') {
        v.pop_back();
    }
    while (!v.empty() && v.front() == ' ') {
        v.erase(0, 1);
    }
    return v;
}

std::string Lower(std::string v) {
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
    return v;
}

// One parameter (proto, host) of the first element of an RFC 7239 Forwarded header.
std::string ForwardedParam(const std::string& header, std::string_view name) {
    const std::string first = FirstHop(header);
    std::size_t pos = 0;
    while (pos < first.size()) {
        const auto semi = first.find(';', pos);
        std::string pair = first.substr(pos, semi == std::string::npos ? std::string::npos : semi - pos);
        pos = semi == std::string::npos ? first.size() : semi + 1;
        pair = FirstHop(pair);
        const auto eq = pair.find('=');
        if (eq == std::string::npos || Lower(pair.substr(0, eq)) != name) {
            continue;
        }
        std::string value = pair.substr(eq + 1);
        if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
            value = value.substr(1, value.size() - 2);
        }
        return value;
    }
    return {};
}

}  // namespace

std::string BaseUrl(const server::Request& request, const std::string& external_base_url) {
    if (!external_base_url.empty()) {
        return external_base_url;
    }
    // Forwarding headers are only present when a trusted proxy sent them: the server drops them
    // from every other peer (server.trusted_proxies), so a client cannot rewrite these links.
    const std::string forwarded = request.Header("Forwarded");
    std::string proto = Lower(ForwardedParam(forwarded, "proto"));
    if (proto.empty()) {
        proto = Lower(FirstHop(request.Header("X-Forwarded-Proto")));
    }
    if (proto.empty() && Lower(FirstHop(request.Header("X-Forwarded-Ssl"))) == "on") {
        proto = "https";
    }
    if (proto != "https") {
        proto = "http";
    }
    std::string host = ForwardedParam(forwarded, "host");
    if (host.empty()) {
        host = FirstHop(request.Header("X-Forwarded-Host"));
    }
    if (host.empty()) {
        host = request.Header("Host");
    }
    if (host.empty()) {
        host = "localhost";
    }
    const std::string port = FirstHop(request.Header("X-Forwarded-Port"));
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
    std::string prefix = FirstHop(request.Header("X-Forwarded-Prefix"));
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
