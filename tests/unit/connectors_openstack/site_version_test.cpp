// What the VM and HPC connectors say of their sites' versions (diagnostics, attempt_started),
// against a scripted http::Client: Keystone's version document (OpenStack), IM's GET /version,
// slurmrestd's ping meta; and what a site answering nonsense makes of it.
#include "fake_openstack.hpp"

#include <connectors/im_connector.hpp>
#include <connectors/openstack_connector.hpp>
#include <connectors/site_client_factory.hpp>
#include <connectors/slurm_connector.hpp>

#include <catch2/catch.hpp>

namespace {

using orch::Json;
using orch::connectors::SiteTarget;
using orch::connectors::TargetKind;
using orch::test::FakeClient;
using orch::test::JsonResponse;

std::string VersionOf(orch::connectors::ConnectorResult<std::string> answer) {
    REQUIRE(std::holds_alternative<std::string>(answer));
    return std::get<std::string>(answer);
}

SiteTarget Target(TargetKind kind, std::string endpoint) {
    SiteTarget t;
    t.site_id = "SITE-V";
    t.service_id = "SITE-V_svc";
    t.kind = kind;
    t.endpoint = std::move(endpoint);
    t.credentials.username = "alice";
    t.credentials.bearer_token = "token-1";
    return t;
}

}  // namespace

TEST_CASE("OpenStack names Keystone's version from its version document", "[openstack][version]") {
    FakeClient client;
    orch::connectors::SharedClientFactory clients(client);
    orch::ManualClock clock;
    orch::connectors::OpenStackConnector connector(clients, clock);
    client.Route("GET", "/v3", [](const orch::http::ClientRequest&) {
        return JsonResponse(200, {{"version", {{"id", "v3.14"}, {"status", "stable"}}}});
    });
    client.Route("GET", "/root", [](const orch::http::ClientRequest&) {
        return JsonResponse(
            300,
            {{"versions",
              {{"values",
                Json::array({{{"id", "v2.0"}, {"status", "deprecated"}}, {{"id", "v3.10"}, {"status", "stable"}}})}}}}
        );
    });
    client.Route("GET", "/junk", [](const orch::http::ClientRequest&) {
        return JsonResponse(200, {{"version", {{"id", std::string(200, '\x01')}}}});
    });
    client.Route("GET", "/deep", [](const orch::http::ClientRequest&) {
        orch::http::ClientResponse r;
        r.status = 200;
        r.body = std::string(100'000, '[') + std::string(100'000, ']');
        return r;
    });
    CHECK(
        VersionOf(connector.SiteVersion(Target(TargetKind::kOpenStack, "http://keystone.test:5000/v3"))) ==
        "Keystone v3.14"
    );
    CHECK(
        VersionOf(connector.SiteVersion(Target(TargetKind::kOpenStack, "http://keystone.test:5000/root"))) ==
        "Keystone v3.10"
    );
    // What the site says reaches a user: printable, bounded; nonsense is "unknown".
    const std::string junk = VersionOf(connector.SiteVersion(Target(TargetKind::kOpenStack, "http://k.test/junk")));
    CHECK(junk.size() <= std::string("Keystone ").size() + 64);
    CHECK(junk.find('\x01') == std::string::npos);
    CHECK(VersionOf(connector.SiteVersion(Target(TargetKind::kOpenStack, "http://k.test/deep"))) == "Keystone unknown");
    // No such endpoint: a failure the cache remembers as unknown, not an exception.
    CHECK(std::holds_alternative<orch::connectors::Failure>(
        connector.SiteVersion(Target(TargetKind::kOpenStack, "http://k.test/absent"))
    ));
}

TEST_CASE("IM names its version from GET /version, as text or JSON", "[im][version]") {
    FakeClient client;
    orch::connectors::SharedClientFactory clients(client);
    orch::connectors::ImOptions options;
    options.endpoint = "http://im.test/text";
    orch::connectors::ImConnector connector(clients, options);
    client.Route("GET", "/text/version", [](const orch::http::ClientRequest&) {
        orch::http::ClientResponse r;
        r.status = 200;
        r.body = "1.13.2\n";
        return r;
    });
    client.Route("GET", "/json/version", [](const orch::http::ClientRequest&) {
        return JsonResponse(200, {{"version", "1.19.0"}});
    });
    SiteTarget target = Target(TargetKind::kOpenStack, "https://keystone.test:5000/v3");
    CHECK(VersionOf(connector.SiteVersion(target)) == "IM 1.13.2");
    target.options["im_endpoint"] = "http://im.test/json";
    CHECK(VersionOf(connector.SiteVersion(target)) == "IM 1.19.0");
}

TEST_CASE("Slurm names its release from slurmrestd's ping meta", "[slurm][version]") {
    FakeClient client;
    orch::connectors::SharedClientFactory clients(client);
    orch::connectors::SlurmConnector connector(clients);
    client.Route("GET", "/a/slurm/v0.0.38/ping", [](const orch::http::ClientRequest&) {
        return JsonResponse(
            200,
            {{"meta", {{"Slurm", {{"version", {{"major", 22}, {"micro", 8}, {"minor", 5}}}, {"release", "22.05.8"}}}}},
             {"errors", Json::array()},
             {"pings", Json::array()}}
        );
    });
    client.Route("GET", "/b/slurm/v0.0.38/ping", [](const orch::http::ClientRequest&) {
        const Json version{{"major", 23}, {"micro", 1}, {"minor", 2}};
        return JsonResponse(200, Json{{"meta", Json{{"Slurm", Json{{"version", version}}}}}});
    });
    client.Route("GET", "/c/slurm/v0.0.38/ping", [](const orch::http::ClientRequest&) {
        return JsonResponse(200, {{"meta", "nothing"}, {"errors", Json::array()}});
    });
    CHECK(VersionOf(connector.SiteVersion(Target(TargetKind::kSlurm, "http://hpc.test/a"))) == "Slurm 22.05.8");
    CHECK(VersionOf(connector.SiteVersion(Target(TargetKind::kSlurm, "http://hpc.test/b"))) == "Slurm 23.2.1");
    CHECK(VersionOf(connector.SiteVersion(Target(TargetKind::kSlurm, "http://hpc.test/c"))) == "Slurm unknown");
}
