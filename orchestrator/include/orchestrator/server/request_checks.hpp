#pragma once

#include "common/ip_address.hpp"
#include "common/result.hpp"
#include "orchestrator/server/request.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace orch::server {

/// Refuses (400, kInvalidArgument naming the part) a request whose meaning could differ between
/// the orchestrator and something in front of or behind it:
/// - a repeated Authorization, Host, Content-Length, Content-Type or Transfer-Encoding header,
///   or both Content-Length and Transfer-Encoding (a proxy may act on the other one);
/// - a path, query parameter name or value that is not UTF-8 or holds a NUL (the database and
///   C libraries would store or compare something else than what was checked).
/// Run once by the server for every request, before routing: no handler sees such a request.
Status CheckRequest(const Request& request);

/// The peers whose forwarding headers (Forwarded, X-Forwarded-*) are believed:
/// `server.trusted_proxies`, addresses or CIDR blocks; empty trusts no one.
class ProxyTrust {
   public:
    ProxyTrust() = default;
    static Result<ProxyTrust> FromList(const std::vector<std::string>& entries);
    bool Trusts(std::string_view peer_address) const;

   private:
    std::vector<net::IpRange> ranges_;
};

/// From an untrusted peer, drops every forwarding header, so nothing downstream (response links,
/// logs) can act on what any client may write. From a trusted proxy, keeps them and takes the
/// client address (Forwarded for=, else X-Forwarded-For) as the request's remote address.
void ApplyProxyTrust(Request& request, const ProxyTrust& trust);

}  // namespace orch::server
