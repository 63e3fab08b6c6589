#include "common/ip_address.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <charconv>
#include <cstring>

namespace orch::net {
namespace {

IpAddress FromV4(std::uint32_t host_order) {
    IpAddress a;
    a.v4 = true;
    a.bytes[0] = static_cast<std::uint8_t>(host_order >> 24);
    a.bytes[1] = static_cast<std::uint8_t>(host_order >> 16);
    a.bytes[2] = static_cast<std::uint8_t>(host_order >> 8);
    a.bytes[3] = static_cast<std::uint8_t>(host_order);
    return a;
}

std::uint32_t V4Bits(const IpAddress& a) {
    return (std::uint32_t{a.bytes[0]} << 24) | (std::uint32_t{a.bytes[1]} << 16) | (std::uint32_t{a.bytes[2]} << 8) |
           std::uint32_t{a.bytes[3]};
}

bool PrefixMatches(const IpAddress& a, std::initializer_list<std::uint8_t> prefix_bytes, int bits) {
    IpRange r;
    r.base.v4 = a.v4;
    std::size_t i = 0;
    for (const auto b : prefix_bytes) {
        r.base.bytes[i++] = b;
    }
    r.prefix = bits;
    return r.Contains(a);
}

AddressClass ClassifyV4(const IpAddress& a) {
    const std::uint32_t v = V4Bits(a);
    const auto in = [v](std::uint32_t net, int bits) {
        const std::uint32_t mask = bits == 0 ? 0 : ~std::uint32_t{0} << (32 - bits);
        return (v & mask) == net;
    };
    if (v == 0xA9FEA9FE) {  // 169.254.169.254
        return AddressClass::kMetadata;
    }
    if (in(0x00000000, 8)) {
        return AddressClass::kUnspecified;
    }
    if (in(0x7F000000, 8)) {
        return AddressClass::kLoopback;
    }
    if (in(0x0A000000, 8) || in(0xAC100000, 12) || in(0xC0A80000, 16)) {
        return AddressClass::kPrivate;
    }
    if (in(0x64400000, 10)) {
        return AddressClass::kSharedCgnat;
    }
    if (in(0xA9FE0000, 16)) {
        return AddressClass::kLinkLocal;
    }
    if (in(0xE0000000, 4)) {
        return AddressClass::kMulticast;
    }
    if (in(0xF0000000, 4) || in(0xC0000000, 24) || in(0xC0000200, 24) || in(0xC6120000, 15) || in(0xC6336400, 24) ||
        in(0xCB007100, 24)) {
        return AddressClass::kReserved;
    }
    return AddressClass::kPublic;
}

AddressClass ClassifyV6(const IpAddress& a) {
    static const IpAddress kMetadata = *ParseIpAddress("fd00:ec2::254");
    if (a == kMetadata) {
        return AddressClass::kMetadata;
    }
    const bool high_zero = std::all_of(a.bytes.begin(), a.bytes.begin() + 15, [](std::uint8_t b) { return b == 0; });
    if (high_zero && a.bytes[15] == 0) {
        return AddressClass::kUnspecified;
    }
    if (high_zero && a.bytes[15] == 1) {
        return AddressClass::kLoopback;
    }
    if (PrefixMatches(a, {0xfe, 0x80}, 10)) {
        return AddressClass::kLinkLocal;
    }
    if (PrefixMatches(a, {0xfc}, 7) || PrefixMatches(a, {0xfe, 0xc0}, 10)) {
        return AddressClass::kPrivate;
    }
    if (PrefixMatches(a, {0xff}, 8)) {
        return AddressClass::kMulticast;
    }
    // IPv4-compatible ::/96 (deprecated, some stacks still route it to IPv4), discard-only
    // 100::/64, documentation 2001:db8::/32.
    if (PrefixMatches(a, {}, 96) || PrefixMatches(a, {0x01, 0x00}, 64) ||
        PrefixMatches(a, {0x20, 0x01, 0x0d, 0xb8}, 32)) {
        return AddressClass::kReserved;
    }
    return AddressClass::kPublic;
}

}  // namespace

IpAddress IpAddress::Unwrapped() const {
    if (v4) {
        return *this;
    }
    const bool mapped = PrefixMatches(*this, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}, 96);
    const bool nat64 = PrefixMatches(*this, {0x00, 0x64, 0xff, 0x9b}, 96);
    if (!mapped && !nat64) {
        return *this;
    }
    IpAddress out;
    out.v4 = true;
    std::copy(bytes.begin() + 12, bytes.end(), out.bytes.begin());
    return out;
}

std::string IpAddress::ToString() const {
    char text[INET6_ADDRSTRLEN] = {};
    ::inet_ntop(v4 ? AF_INET : AF_INET6, bytes.data(), text, sizeof text);
    return text;
}

std::optional<IpAddress> ParseIpAddress(std::string_view text) {
    if (text.size() > 2 && text.front() == '[' && text.back() == ']') {
        text = text.substr(1, text.size() - 2);
    }
    if (text.empty() || text.size() >= INET6_ADDRSTRLEN) {
        return std::nullopt;
    }
    const std::string z(text);
    IpAddress a;
    if (::inet_pton(AF_INET, z.c_str(), a.bytes.data()) == 1) {
        a.v4 = true;
        return a;
    }
    if (::inet_pton(AF_INET6, z.c_str(), a.bytes.data()) == 1) {
        return a;
    }
    return std::nullopt;
}

std::optional<IpAddress> ParseResolverIpv4(std::string_view text) {
    if (text.empty() || text.size() > 64) {
        return std::nullopt;
    }
    const std::string z(text);
    in_addr addr{};
    if (::inet_aton(z.c_str(), &addr) == 0) {
        return std::nullopt;
    }
    return FromV4(ntohl(addr.s_addr));
}

AddressClass ClassifyAddress(const IpAddress& address) {
    const IpAddress a = address.Unwrapped();
    return a.v4 ? ClassifyV4(a) : ClassifyV6(a);
}

std::string_view AddressClassName(AddressClass c) {
    switch (c) {
        case AddressClass::kPublic:
            return "public";
        case AddressClass::kUnspecified:
            return "unspecified";
        case AddressClass::kLoopback:
            return "loopback";
        case AddressClass::kPrivate:
            return "private";
        case AddressClass::kSharedCgnat:
            return "shared (CGNAT)";
        case AddressClass::kLinkLocal:
            return "link-local";
        case AddressClass::kMetadata:
            return "cloud metadata";
        case AddressClass::kMulticast:
            return "multicast";
        case AddressClass::kReserved:
            return "reserved";
    }
    return "unknown";
}

bool IpRange::Contains(const IpAddress& address) const {
    // A v4 block also matches the v4-mapped form of its addresses (dual-stack sockets report those).
    const IpAddress a = base.v4 ? address.Unwrapped() : address;
    if (a.v4 != base.v4) {
        return false;
    }
    int left = prefix;
    for (std::size_t i = 0; left > 0; ++i, left -= 8) {
        const std::uint8_t mask = left >= 8 ? 0xff : static_cast<std::uint8_t>(0xff << (8 - left));
        if ((a.bytes[i] & mask) != (base.bytes[i] & mask)) {
            return false;
        }
    }
    return true;
}

Result<IpRange> ParseIpRange(std::string_view text) {
    const auto slash = text.find('/');
    const auto address = ParseIpAddress(text.substr(0, slash));
    if (!address) {
        return Error::InvalidArgument("'" + std::string(text) + "' is not an IP address or CIDR block");
    }
    IpRange range;
    range.base = *address;
    const int max_bits = address->v4 ? 32 : 128;
    range.prefix = max_bits;
    if (slash != std::string_view::npos) {
        const auto bits = text.substr(slash + 1);
        int value = -1;
        const auto [ptr, ec] = std::from_chars(bits.data(), bits.data() + bits.size(), value);
        if (ec != std::errc() || ptr != bits.data() + bits.size() || value < 0 || value > max_bits) {
            return Error::InvalidArgument("'" + std::string(text) + "' has a bad prefix length");
        }
        range.prefix = value;
    }
    for (int bit = range.prefix; bit < max_bits; ++bit) {
        if ((range.base.bytes[static_cast<std::size_t>(bit / 8)] & (0x80 >> (bit % 8))) != 0) {
            return Error::InvalidArgument("'" + std::string(text) + "' has host bits set after the prefix");
        }
    }
    return range;
}

}  // namespace orch::net
