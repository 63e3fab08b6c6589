// A deployment outlives its owner's access token: the workflow acts for the user with the refresh
// token the token keeper stored at create time (RFC 8693 exchange), so create and delete complete
// after the user's token expired. Real binary, real PostgreSQL, a private test provider whose access
// tokens all live a few seconds, and a site-sim whose Marathon tasks take longer than that to start.
#include "../../integration/auth/oidc_provider.hpp"
#include "authed_orchestrator.hpp"
#include "test_support/site_sim_process.hpp"

#include <common/json.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <functional>
#include <thread>

namespace {

using orch::Json;
using orch::test::AuthedOrchestrator;
using orch::test::OidcProvider;

constexpr int kAccessTokenSeconds = 4;  // every token of the private provider (exchange, refresh)
constexpr int kUserTokenSeconds = 3;    // the user's own token
constexpr int kTaskStartSeconds = 8;    // simulated Marathon: staged -> running

// iam_enabled: the connector sends the owner's access token, which only the token keeper has.
std::string Catalogue(const std::string& marathon, const std::string& issuer) {
    const std::string idps = "        supported_idps: [{name: short, issuer: \"" + issuer + "\"}]\n";
    return "providers:\n"
           "  - id: SIM-A\n    name: sim-a\n    services:\n"
           "      SIM-A_mesos:\n        service_type: eu.indigo-datacloud.mesos\n        endpoint: " +
           marathon +
           "\n"
           "        type: compute\n        iam_enabled: true\n" +
           idps +
           "        properties: {num_cpus: 48, mem_total: 196608}\n"
           "      SIM-A_marathon:\n        service_type: eu.indigo-datacloud.marathon\n        endpoint: " +
           marathon +
           "\n"
           "        type: compute\n        iam_enabled: true\n        service_parent_id: SIM-A_mesos\n" +
           idps + "        properties: {load_balancer_ips: [127.0.0.1]}\n";
}

std::string Slas() {
    return "users:\n"
           "  preferences:\n"
           "    - customer: users\n"
           "      preferences:\n"
           "        - service_type: compute\n"
           "          priority: [{sla_id: sla-a, service_id: SIM-A_marathon, weight: 1.0}]\n"
           "  sla:\n"
           "    - {id: sla-a, customer: users, provider: SIM-A, services: [{type: computing, service_id: "
           "SIM-A_marathon, targets: []}]}\n";
}

const char* kTemplate = R"(tosca_definitions_version: tosca_simple_yaml_1_0
imports:
  - indigo_custom_types: https://raw.githubusercontent.com/indigo-dc/tosca-types/master/custom_types.yaml
topology_template:
  node_templates:
    app:
      type: tosca.nodes.indigo.Container.Application.Docker.Marathon
      artifacts:
        image:
          file: hello-world
          type: tosca.artifacts.Deployment.Image.Container.Docker
      requirements:
        - host: Docker
    Docker:
      type: tosca.nodes.indigo.Container.Runtime.Docker
      capabilities:
        host:
          properties:
            num_cpus: 1.0
            mem_size: 1 GB
)";

int CountOf(const std::string& text, const std::string& needle) {
    int n = 0;
    for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
        ++n;
    }
    return n;
}

}  // namespace

TEST_CASE("a deployment whose owner's token expired still completes and is deleted", "[e2e][auth]") {
    auto provider = OidcProvider::StartOwn("short", "full", kAccessTokenSeconds);
    orch::sim::test::SiteSimProcess sim("timing: {task_start: " + std::to_string(kTaskStartSeconds) + "}\n");
    orch::test::AuthedSetup setup;
    setup.issuers = {{"short", provider->issuer()}};
    setup.auth_extra = "  clock_skew: 0s\n";  // expired means expired, to the second
    setup.catalogue_yaml = Catalogue(sim.Url("marathon"), provider->issuer());
    setup.sla_yaml = Slas();
    setup.default_group = "users";
    AuthedOrchestrator api(setup);

    const auto user = provider->UserToken(
        "bob", "openid profile offline_access", "dashboard", "&ttl=" + std::to_string(kUserTokenSeconds)
    );
    const auto started = std::chrono::steady_clock::now();
    const std::string id = api.Create(user.access_token, kTemplate);

    // Watching is done by the admin (same issuer); each poll uses a token fresh at that moment.
    const std::function<std::string()> admin = [&] {
        return provider->UserToken("alice").access_token;
    };
    const Json done = api.WaitFor(id, "CREATE_COMPLETE", admin, 60);
    const auto took = std::chrono::steady_clock::now() - started;
    INFO(api.Log());
    CHECK(took > std::chrono::seconds(kUserTokenSeconds));  // the user's token was dead before the site finished
    CHECK(done["createdBy"]["subject"] == user.claims["sub"]);
    const auto expired = api.Call("GET", "/deployments/" + id, user.access_token);
    CHECK(orch::test::ErrorMessage(expired, 401) == "Invalid token: the token has expired");
    // Each downstream call needed a live token of bob's; with 4 s tokens, some were refreshed.
    const int refreshed_while_creating = CountOf(api.Log(), "access token refreshed for downstream calls");
    CHECK(refreshed_while_creating >= 1);

    // Later the user logs in again and deletes; the delete steps run on the stored refresh token too.
    std::this_thread::sleep_for(std::chrono::seconds(kAccessTokenSeconds));  // let the keeper's token lapse
    const auto later = provider->UserToken("bob").access_token;
    REQUIRE(api.Call("DELETE", "/deployments/" + id, later).status == 204);
    // Gone for its user once deleted (v4.0.1's 404); the admin's audit view shows how it ended.
    CHECK(api.WaitFor(id + "?includeDeleted=true", "DELETE_COMPLETE", admin, 60)["status"] == "DELETE_COMPLETE");
    CHECK(api.Call("GET", "/deployments/" + id, provider->UserToken("bob").access_token).status == 404);
    CHECK(CountOf(api.Log(), "access token refreshed for downstream calls") > refreshed_while_creating);
}
