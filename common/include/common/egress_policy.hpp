#pragma once

#include "common/ip_address.hpp"
#include "common/result.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orch::http {

/// Why a user-given URL is refused, as a value: an API that answers a malformed URL with its own
/// contract text and an unreachable address with the policy's reason reads this, not the message.
enum class UrlRefusal {
    kNotHttpUrl,         ///< not http(s), no host, whitespace, or not parseable
    kAddressNotAllowed,  ///< a literal address the policy does not let through
};

struct UrlProblem {
    UrlRefusal refusal = UrlRefusal::kNotHttpUrl;
    std::string reason;  ///< for the user: names the scheme or the address class, never internals
};

/// Which addresses an outbound request made because a user asked (callbacks, any future
/// user-given URL) may reach. Loopback, private, CGNAT, link-local, metadata, multicast,
/// unspecified and reserved addresses are refused unless the operator's allow-list names the
/// address (a CIDR block) or the host; redirects are never followed for such requests.
///
/// Checked twice: on the URL when a user gives it (a literal address, in any spelling the
/// resolver accepts, and the scheme), and on every address the host resolves to when the request
/// is made — the client connects only to the checked addresses, so DNS rebinding cannot bypass it.
class EgressPolicy {
   public:
    /// No allow-list: only public addresses.
    EgressPolicy() = default;

    /// `entries`: IP addresses, CIDR blocks, or host names (exact, case-insensitive). Fails
    /// naming an entry that is neither.
    static Result<EgressPolicy> FromAllowList(const std::vector<std::string>& entries);

    /// A URL a user gives: nullopt when it is http(s) (scheme case-insensitive) with a host, no
    /// whitespace anywhere, and a host that, when it is a literal address, may be reached.
    /// Checked by hand in linear time: user text never reaches a backtracking matcher.
    std::optional<UrlProblem> FindUrlProblem(std::string_view url) const;

    /// FindUrlProblem as a Status: kInvalidArgument (400) with the problem's reason.
    Status CheckUrl(std::string_view url) const;

    /// An address `host` resolved to: kPermissionDenied unless it may be reached.
    Status CheckResolved(std::string_view host, const net::IpAddress& address) const;

   private:
    bool AllowsHost(std::string_view host) const;
    bool AllowsAddress(const net::IpAddress& address) const;

    std::vector<net::IpRange> ranges_;
    std::vector<std::string> hosts_;  ///< lower case
};

}  // namespace orch::http
