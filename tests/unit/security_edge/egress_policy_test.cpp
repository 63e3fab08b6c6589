#include <common/egress_policy.hpp>

#include <catch2/catch.hpp>

using orch::ErrorCode;
using orch::http::EgressPolicy;
using orch::net::ParseIpAddress;

TEST_CASE("the default egress policy refuses literal internal addresses in user URLs", "[security][egress]") {
    const EgressPolicy policy;
    for (const char* url :
         {"http://127.0.0.1:9/cb",
          "http://10.1.2.3/x",
          "http://169.254.169.254/latest/meta-data",
          "http://[::1]:9/",
          "https://[fd00:ec2::254]/",
          "http://[::ffff:127.0.0.1]/",
          "http://0.0.0.0:80/",
          "http://2130706433/",
          "http://127.1/",
          "http://0x7f.0.0.1/",
          "http://user@192.168.0.1/",
          "http://100.64.1.1/",
          "http://224.0.0.1/",
          "HTTP://127.0.0.1/"}) {
        INFO(url);
        const auto checked = policy.CheckUrl(url);
        REQUIRE_FALSE(checked);
        CHECK(checked.error().code == ErrorCode::kInvalidArgument);
    }
    CHECK_FALSE(policy.CheckUrl("ftp://example.org/"));
    CHECK_FALSE(policy.CheckUrl("file:///etc/passwd"));
    CHECK_FALSE(policy.CheckUrl("gopher://127.0.0.1/"));
    // Host names are decided when they resolve; public literals pass.
    CHECK(policy.CheckUrl("https://hooks.example.org/cb"));
    CHECK(policy.CheckUrl("http://localhost:9/cb"));
    CHECK(policy.CheckUrl("http://93.184.216.34/cb"));
}

TEST_CASE("the default egress policy refuses resolved internal addresses", "[security][egress]") {
    const EgressPolicy policy;
    const auto refused = policy.CheckResolved("localhost", *ParseIpAddress("127.0.0.1"));
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == ErrorCode::kPermissionDenied);
    CHECK(refused.error().message.find("loopback") != std::string::npos);
    CHECK_FALSE(policy.CheckResolved("x", *ParseIpAddress("::1")));
    CHECK_FALSE(policy.CheckResolved("x", *ParseIpAddress("::ffff:169.254.169.254")));
    CHECK(policy.CheckResolved("x", *ParseIpAddress("93.184.216.34")));
}

TEST_CASE("the operator's allow-list opens addresses, blocks and host names", "[security][egress]") {
    const auto policy = EgressPolicy::FromAllowList({"127.0.0.1", "10.0.0.0/8", "Hooks.Internal.", "fd00::/8"});
    REQUIRE(policy);
    CHECK(policy->CheckUrl("http://127.0.0.1:9/cb"));
    CHECK(policy->CheckUrl("http://10.9.9.9/cb"));
    CHECK_FALSE(policy->CheckUrl("http://127.0.0.2/cb"));
    CHECK_FALSE(policy->CheckUrl("http://169.254.169.254/"));
    CHECK(policy->CheckResolved("anything", *ParseIpAddress("::ffff:127.0.0.1")));
    CHECK(policy->CheckResolved("hooks.internal", *ParseIpAddress("192.168.7.7")));
    CHECK(policy->CheckResolved("anything", *ParseIpAddress("fd01::1")));
    CHECK_FALSE(policy->CheckResolved("other.internal", *ParseIpAddress("192.168.7.7")));
    CHECK_FALSE(EgressPolicy::FromAllowList({"10.0.0.0/99"}));
    CHECK_FALSE(EgressPolicy::FromAllowList({"not a host"}));
}
