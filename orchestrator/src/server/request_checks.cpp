#include "orchestrator/server/request_checks.hpp"

#include "common/utf8.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace orch::server {
namespace {

bool IEquals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

bool IStartsWith(std::string_view text, std::string_view prefix) {
    return text.size() >= prefix.size() && IEquals(text.substr(0, prefix.size()), prefix);
}

std::size_t CountHeader(const http::Headers& headers, std::string_view name) {
    return static_cast<std::size_t>(std::count_if(headers.begin(), headers.end(), [&](const auto& h) {
        return IEquals(h.first, name);
    }));
}

bool IsForwardingHeader(std::string_view name) {
    return IEquals(name, "Forwarded") || IStartsWith(name, "X-Forwarded-") || IEquals(name, "X-Real-IP");
}

std::string Trim(std::string_view v) {
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) {
        v.remove_prefix(1);
    }
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) {
        v.remove_suffix(1);
    }
    return std::string(v);
}

// "for" of the first (client-side) element of a Forwarded header: for=192.0.2.1,
// for="[2001:db8::1]:4711" — quotes, brackets and port removed.
std::string ForwardedFor(std::string_view header) {
    const std::string_view first = header.substr(0, header.find(','));
    std::size_t pos = 0;
    while (pos < first.size()) {
        const auto semi = first.find(';', pos);
        const std::string pair = Trim(first.substr(pos, semi == std::string_view::npos ? semi : semi - pos));
        pos = semi == std::string_view::npos ? first.size() : semi + 1;
        if (!IStartsWith(pair, "for=")) {
            continue;
        }
        std::string value = pair.substr(4);
        if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
            value = value.substr(1, value.size() - 2);
        }
        if (!value.empty() && value.front() == '[') {
            return value.substr(1, value.find(']') - 1);
        }
        if (std::count(value.begin(), value.end(), ':') == 1) {
            value.resize(value.find(':'));
        }
        return value;
    }
    return {};
}

}  // namespace

Status CheckRequest(const Request& request) {
    static constexpr std::array<std::string_view, 5> kSingle = {
        "Authorization", "Host", "Content-Length", "Content-Type", "Transfer-Encoding"};
    for (const auto name : kSingle) {
        if (CountHeader(request.headers, name) > 1) {
            return Error::InvalidArgument("The " + std::string(name) + " header must not be repeated");
        }
    }
    if (CountHeader(request.headers, "Content-Length") > 0 && CountHeader(request.headers, "Transfer-Encoding") > 0) {
        return Error::InvalidArgument("A request must not carry both Content-Length and Transfer-Encoding");
    }
    if (!IsStorableText(request.path)) {
        return Error::InvalidArgument("The request path must be UTF-8 without NUL characters");
    }
    for (const auto& [key, value] : request.query) {
        if (!IsStorableText(key)) {
            return Error::InvalidArgument("Query parameter names must be UTF-8 without NUL characters");
        }
        if (!IsStorableText(value)) {
            return Error::InvalidArgument("Query parameter '" + key + "' must be UTF-8 without NUL characters");
        }
    }
    return Ok();
}

Result<ProxyTrust> ProxyTrust::FromList(const std::vector<std::string>& entries) {
    ProxyTrust trust;
    for (const auto& entry : entries) {
        auto range = net::ParseIpRange(entry);
        if (!range) {
            return Error::InvalidArgument("trusted proxy " + range.error().message);
        }
        trust.ranges_.push_back(*range);
    }
    return trust;
}

bool ProxyTrust::Trusts(std::string_view peer_address) const {
    const auto address = net::ParseIpAddress(peer_address);
    return address &&
           std::any_of(ranges_.begin(), ranges_.end(), [&](const net::IpRange& r) { return r.Contains(*address); });
}

void ApplyProxyTrust(Request& request, const ProxyTrust& trust) {
    if (!trust.Trusts(request.remote_address)) {
        std::erase_if(request.headers, [](const auto& h) { return IsForwardingHeader(h.first); });
        return;
    }
    std::string client = ForwardedFor(request.Header("Forwarded"));
    if (client.empty()) {
        const std::string xff = request.Header("X-Forwarded-For");
        client = Trim(std::string_view(xff).substr(0, xff.find(',')));
    }
    if (net::ParseIpAddress(client)) {
        request.remote_address = client;
    }
}

}  // namespace orch::server
