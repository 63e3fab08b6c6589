#pragma once

#include "common/result.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace orch::net {

/// An IPv4 or IPv6 address as bytes (IPv4 in the first four), free of any socket library so
/// every module can classify and match addresses.
struct IpAddress {
    std::array<std::uint8_t, 16> bytes{};
    bool v4 = false;

    /// The IPv4 address an IPv6 one carries (v4-mapped ::ffff:a.b.c.d, NAT64 64:ff9b::a.b.c.d),
    /// else the address itself: both reach the same IPv4 host.
    IpAddress Unwrapped() const;
    std::string ToString() const;
    friend bool operator==(const IpAddress&, const IpAddress&) = default;
};

/// Strict numeric forms only (dotted quad, RFC 4291 text; "[...]" brackets accepted).
std::optional<IpAddress> ParseIpAddress(std::string_view text);

/// What the system resolver would take for a numeric IPv4 host too: "127.1", "0x7f.0.0.1",
/// "2130706433" (inet_aton forms). A URL host spelt so never goes through DNS, so checks made
/// before resolution must read it the same way.
std::optional<IpAddress> ParseResolverIpv4(std::string_view text);

/// Where an address leads. Anything but kPublic reaches the orchestrator's own host or network.
enum class AddressClass {
    kPublic,
    kUnspecified,  ///< 0.0.0.0/8, :: (connects to the local host on Linux)
    kLoopback,     ///< 127.0.0.0/8, ::1
    kPrivate,      ///< 10/8, 172.16/12, 192.168/16, fc00::/7, fec0::/10
    kSharedCgnat,  ///< 100.64.0.0/10
    kLinkLocal,    ///< 169.254.0.0/16, fe80::/10
    kMetadata,     ///< cloud instance metadata: 169.254.169.254, fd00:ec2::254
    kMulticast,    ///< 224.0.0.0/4, ff00::/8
    kReserved,     ///< 240/4 and broadcast, documentation, benchmarking, IETF protocol ranges
};

AddressClass ClassifyAddress(const IpAddress& address);
std::string_view AddressClassName(AddressClass c);

/// An address block ("10.0.0.0/8", "fd00::/8"); a bare address is a block of one.
struct IpRange {
    IpAddress base;
    int prefix = 0;
    bool Contains(const IpAddress& address) const;
};

/// Fails naming the text when it is not an address or CIDR block (host bits must be zero).
Result<IpRange> ParseIpRange(std::string_view text);

}  // namespace orch::net
