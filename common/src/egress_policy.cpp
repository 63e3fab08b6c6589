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

Status EgressPolicy::CheckUrl(std::string_view url) const {
    const auto scheme_end = url.find("://");
    const std::string scheme = Lower(url.substr(0, scheme_end == std::string_view::npos ? 0 : scheme_end));
    if (scheme != "http" && scheme != "https") {
        return Error::InvalidArgument("only http and https URLs are accepted");
    }
    auto parsed = ParseUrl(std::string(url));
    if (!parsed) {
        return Error::InvalidArgument("not a valid http or https URL");
    }
    if (AllowsHost(parsed->host)) {
        return Ok();
    }
    auto literal = net::ParseIpAddress(parsed->host);
    if (!literal) {
        literal = net::ParseResolverIpv4(parsed->host);
    }
    if (literal && !AllowsAddress(*literal)) {
        return Error::InvalidArgument(
            "host " + parsed->host + " is a " + std::string(net::AddressClassName(net::ClassifyAddress(*literal))) +
            " address; only public addresses may be reached"
        );
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
