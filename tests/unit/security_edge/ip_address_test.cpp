#include <common/ip_address.hpp>

#include <catch2/catch.hpp>

using orch::net::AddressClass;
using orch::net::ClassifyAddress;
using orch::net::ParseIpAddress;
using orch::net::ParseIpRange;
using orch::net::ParseResolverIpv4;

namespace {

AddressClass Class(const char* text) {
    const auto a = ParseIpAddress(text);
    REQUIRE(a);
    return ClassifyAddress(*a);
}

}  // namespace

TEST_CASE("IPv4 addresses are classified by where they lead", "[security][egress]") {
    CHECK(Class("8.8.8.8") == AddressClass::kPublic);
    CHECK(Class("93.184.216.34") == AddressClass::kPublic);
    CHECK(Class("0.0.0.0") == AddressClass::kUnspecified);
    CHECK(Class("0.1.2.3") == AddressClass::kUnspecified);
    CHECK(Class("127.0.0.1") == AddressClass::kLoopback);
    CHECK(Class("127.255.0.9") == AddressClass::kLoopback);
    CHECK(Class("10.1.2.3") == AddressClass::kPrivate);
    CHECK(Class("172.16.0.1") == AddressClass::kPrivate);
    CHECK(Class("172.31.255.255") == AddressClass::kPrivate);
    CHECK(Class("172.32.0.1") == AddressClass::kPublic);
    CHECK(Class("192.168.1.1") == AddressClass::kPrivate);
    CHECK(Class("100.64.0.1") == AddressClass::kSharedCgnat);
    CHECK(Class("100.127.255.255") == AddressClass::kSharedCgnat);
    CHECK(Class("100.128.0.1") == AddressClass::kPublic);
    CHECK(Class("169.254.0.1") == AddressClass::kLinkLocal);
    CHECK(Class("169.254.169.254") == AddressClass::kMetadata);
    CHECK(Class("224.0.0.1") == AddressClass::kMulticast);
    CHECK(Class("239.255.255.250") == AddressClass::kMulticast);
    CHECK(Class("255.255.255.255") == AddressClass::kReserved);
    CHECK(Class("240.0.0.1") == AddressClass::kReserved);
    CHECK(Class("192.0.2.1") == AddressClass::kReserved);
    CHECK(Class("198.18.0.1") == AddressClass::kReserved);
}

TEST_CASE("IPv6 addresses are classified, embedded IPv4 by the address they carry", "[security][egress]") {
    CHECK(Class("2001:4860:4860::8888") == AddressClass::kPublic);
    CHECK(Class("::") == AddressClass::kUnspecified);
    CHECK(Class("::1") == AddressClass::kLoopback);
    CHECK(Class("[::1]") == AddressClass::kLoopback);
    CHECK(Class("fe80::1") == AddressClass::kLinkLocal);
    CHECK(Class("febf::1") == AddressClass::kLinkLocal);
    CHECK(Class("fc00::1") == AddressClass::kPrivate);
    CHECK(Class("fd12:3456::1") == AddressClass::kPrivate);
    CHECK(Class("fd00:ec2::254") == AddressClass::kMetadata);
    CHECK(Class("ff02::1") == AddressClass::kMulticast);
    CHECK(Class("2001:db8::1") == AddressClass::kReserved);
    // v4-mapped and NAT64 forms reach the IPv4 host they embed.
    CHECK(Class("::ffff:127.0.0.1") == AddressClass::kLoopback);
    CHECK(Class("::ffff:7f00:1") == AddressClass::kLoopback);
    CHECK(Class("::ffff:169.254.169.254") == AddressClass::kMetadata);
    CHECK(Class("::ffff:10.0.0.1") == AddressClass::kPrivate);
    CHECK(Class("::ffff:8.8.8.8") == AddressClass::kPublic);
    CHECK(Class("64:ff9b::a00:1") == AddressClass::kPrivate);
    // IPv4-compatible (deprecated) addresses are not public either.
    CHECK(Class("::127.0.0.1") != AddressClass::kPublic);
}

TEST_CASE("numeric hosts the resolver accepts are read as it reads them", "[security][egress]") {
    CHECK_FALSE(ParseIpAddress("2130706433"));
    const auto decimal = ParseResolverIpv4("2130706433");
    REQUIRE(decimal);
    CHECK(ClassifyAddress(*decimal) == AddressClass::kLoopback);
    const auto short_form = ParseResolverIpv4("127.1");
    REQUIRE(short_form);
    CHECK(short_form->ToString() == "127.0.0.1");
    const auto hex = ParseResolverIpv4("0xa9.0xfe.0xa9.0xfe");
    REQUIRE(hex);
    CHECK(ClassifyAddress(*hex) == AddressClass::kMetadata);
    CHECK_FALSE(ParseResolverIpv4("example.org"));
}

TEST_CASE("CIDR blocks match their addresses, v4 blocks also the v4-mapped forms", "[security][egress]") {
    const auto ten = ParseIpRange("10.0.0.0/8");
    REQUIRE(ten);
    CHECK(ten->Contains(*ParseIpAddress("10.200.1.1")));
    CHECK_FALSE(ten->Contains(*ParseIpAddress("11.0.0.1")));
    CHECK(ten->Contains(*ParseIpAddress("::ffff:10.0.0.1")));
    const auto one = ParseIpRange("127.0.0.1");
    REQUIRE(one);
    CHECK(one->Contains(*ParseIpAddress("127.0.0.1")));
    CHECK_FALSE(one->Contains(*ParseIpAddress("127.0.0.2")));
    const auto v6 = ParseIpRange("fd00::/8");
    REQUIRE(v6);
    CHECK(v6->Contains(*ParseIpAddress("fd12::1")));
    CHECK_FALSE(v6->Contains(*ParseIpAddress("10.0.0.1")));
    const auto all = ParseIpRange("0.0.0.0/0");
    REQUIRE(all);
    CHECK(all->Contains(*ParseIpAddress("8.8.8.8")));
    CHECK_FALSE(ParseIpRange("10.0.0.1/8"));  // host bits set
    CHECK_FALSE(ParseIpRange("10.0.0.0/33"));
    CHECK_FALSE(ParseIpRange("10.0.0.0/"));
    CHECK_FALSE(ParseIpRange("example.org"));
}
