#include "common/egress_policy.hpp"

#include "common/http_client.hpp"

#include <algorithm>
#include <cctype>

namespace orch::http {
namespace {

std::string Lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

bool LooksLikeHostName(std::string_view host) {
    return !host.empty() && host.size() <= 253 && std::all_of(host.begin(), host.end(), [](unsigned char c) {
        return std::isalnum(c) != 0 || c == '-' || c == '.' || c == '_';
    });
}

// A trailing dot names the same host ("localhost." resolves as "localhost").
std::string CanonicalHost(std::string_view host) {
    std::string out = Lower(host);
    while (!out.empty() && out.back() == '.') {
        out.pop_back();
    }
    return out;
}

}  // namespace

Result<EgressPolicy> EgressPolicy::FromAllowList(const std::vector<std::string>& entries) {
    EgressPolicy policy;
    for (const auto& entry : entries) {
        if (auto range = net::ParseIpRange(entry)) {
            policy.ranges_.push_back(*range);
        } else if (entry.find('/') == std::string::npos && LooksLikeHostName(entry)) {
            policy.hosts_.push_back(CanonicalHost(entry));
        } else {
            return Error::InvalidArgument(
                "egress allow-list entry '" + entry + "' is neither an IP address, a CIDR block nor a host name"
            );
        }
    }
    return policy;
}

bool EgressPolicy::AllowsHost(std::string_view host) const {
    const std::string canonical = CanonicalHost(host);
    return std::find(hosts_.begin(), hosts_.end(), canonical) != hosts_.end();
}

bool EgressPolicy::AllowsAddress(const net::IpAddress& address) const {
    return net::ClassifyAddress(address) == net::AddressClass::kPublic ||
           std::any_of(ranges_.begin(), ranges_.end(), [&](const net::IpRange& r) { return r.Contains(address); });
}

std::optional<UrlProblem> EgressPolicy::FindUrlProblem(std::string_view url) const {
    const auto not_http = [](std::string reason) {
        return UrlProblem{UrlRefusal::kNotHttpUrl, std::move(reason)};
    };
    const auto scheme_end = url.find("://");
    const std::string scheme = Lower(url.substr(0, scheme_end == std::string_view::npos ? 0 : scheme_end));
    if (scheme != "http" && scheme != "https") {
        return not_http("only http and https URLs are accepted");
    }
    const auto space = [](char c) {
        return c == ' ' || (c >= '\t' && c <= '\r');
    };
    if (std::any_of(url.begin(), url.end(), space)) {
        return not_http("a URL has no whitespace");
    }
    auto parsed = ParseUrl(std::string(url));
    if (!parsed || parsed->host.empty()) {
        return not_http("not a valid http or https URL");
    }
    if (AllowsHost(parsed->host)) {
        return std::nullopt;
    }
    auto literal = net::ParseIpAddress(parsed->host);
    if (!literal) {
        literal = net::ParseResolverIpv4(parsed->host);
    }
    if (literal && !AllowsAddress(*literal)) {
        return UrlProblem{
            UrlRefusal::kAddressNotAllowed,
            "host " + parsed->host + " is a " + std::string(net::AddressClassName(net::ClassifyAddress(*literal))) +
                " address; only public addresses may be reached"};
    }
    return std::nullopt;
}

Status EgressPolicy::CheckUrl(std::string_view url) const {
    if (auto problem = FindUrlProblem(url)) {
        return Error::InvalidArgument(std::move(problem->reason));
    }
    return Ok();
}

Status EgressPolicy::CheckResolved(std::string_view host, const net::IpAddress& address) const {
    if (AllowsHost(host) || AllowsAddress(address)) {
        return Ok();
    }
    return Error::PermissionDenied(
        std::string(host) + " resolves to " + address.ToString() + ", a " +
        std::string(net::AddressClassName(net::ClassifyAddress(address))) + " address the egress policy refuses"
    );
}

}  // namespace orch::http
