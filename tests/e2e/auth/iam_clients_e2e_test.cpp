// Per-deployment IAM clients through the real binary, real PostgreSQL, the real oidc-provider
// (RFC 7591 registration, RFC 7592 management) and a site-sim: a client exists at the provider
// while the deployment runs, a first site that fails leaves no extra client, the delete leaves
// none, and neither does a kill -9 of the orchestrator between registration and deploy.
#include "../../integration/auth/oidc_provider.hpp"
#include "authed_orchestrator.hpp"
#include "test_support/site_sim_process.hpp"

#include <common/json.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

namespace {

using orch::Json;
using orch::test::AuthedOrchestrator;
using orch::test::OidcProvider;

// A Marathon site per entry (id → endpoint), ranked in the order given.
std::string Catalogue(const std::vector<std::pair<std::string, std::string>>& sites, const std::string& issuer) {
    std::string out = "providers:\n";
    for (const auto& [id, endpoint] : sites) {
        const std::string idps = "        supported_idps: [{name: alpha, issuer: \"" + issuer + "\"}]\n";
        out += "  - id: " + id + "\n    name: " + id + "\n    services:\n" + "      " + id +
               "_mesos:\n        service_type: eu.indigo-datacloud.mesos\n        endpoint: " + endpoint +
               "\n        type: compute\n        iam_enabled: true\n" + idps +
               "        properties: {num_cpus: 48, mem_total: 196608}\n" + "      " + id +
               "_marathon:\n        service_type: eu.indigo-datacloud.marathon\n        endpoint: " + endpoint +
               "\n        type: compute\n        iam_enabled: true\n        service_parent_id: " + id + "_mesos\n" +
               idps + "        properties: {load_balancer_ips: [127.0.0.1]}\n";
    }
    return out;
}

std::string Slas(const std::vector<std::string>& sites) {
    std::string priority;
    std::string slas;
    double weight = 1.0;
    for (const auto& id : sites) {
        priority += "            - {sla_id: sla-" + id + ", service_id: " + id +
                    "_marathon, weight: " + std::to_string(weight) + "}\n";
        slas += "    - {id: sla-" + id + ", customer: users, provider: " + id +
                ", services: [{type: computing, service_id: " + id + "_marathon, targets: []}]}\n";
        weight /= 2;
    }
    return "users:\n  preferences:\n    - customer: users\n      preferences:\n        - service_type: compute\n"
           "          priority:\n" +
           priority + "  sla:\n" + slas;
}

const char* kTemplate = R"(tosca_definitions_version: tosca_simple_yaml_1_0
imports:
  - indigo_custom_types: https://raw.githubusercontent.com/indigo-dc/tosca-types/master/custom_types.yaml
  - orchestrator: https://paas.example.org/types/v1/orchestrator.yaml
topology_template:
  node_templates:
    sso:
      type: tosca.nodes.indigo.iam.client
      properties:
        scopes: openid profile
        redirect_uris: [ "https://app.example.org/oauth_callback" ]
    app:
      type: tosca.nodes.indigo.Container.Application.Docker.Marathon
      properties:
        environment_variables:
          OIDC_CLIENT_ID: { get_property: [ sso, client_id ] }
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

// The provider's live clients registered for deployment `id` (our client names carry it).
int ClientsOf(OidcProvider& idp, const std::string& id) {
    int n = 0;
    for (const auto& client : idp.RegisteredClients()) {
        n += client.value("client_name", std::string()).find("deployment " + id) != std::string::npos ? 1 : 0;
    }
    return n;
}

/// `operator_token`: registrations carry the operator's initial access token; else the owner's own
/// access token, as the original sends it to IAM.
orch::test::AuthedSetup Setup(
    OidcProvider& idp, const std::vector<std::pair<std::string, std::string>>& sites, bool operator_token = true
) {
    orch::test::AuthedSetup setup;
    setup.issuers = {{"alpha", idp.issuer()}};
    std::vector<std::string> ids;
    for (const auto& site : sites) {
        ids.push_back(site.first);
    }
    setup.catalogue_yaml = Catalogue(sites, idp.issuer());
    setup.sla_yaml = Slas(ids);
    setup.default_group = "users";
    setup.env = {
        {"ORCHESTRATOR_IAM_CLIENTS__ENABLED", "true"},
        {"ORCHESTRATOR_IAM_CLIENTS__INITIAL_ACCESS_TOKEN", OidcProvider::InitialAccessToken()},
        {"ORCHESTRATOR_IAM_CLIENTS__KEEPER_PERIOD", "500ms"},
        {"ORCHESTRATOR_IAM_CLIENTS__KEEPER_GRACE", "1s"},
        {"ORCHESTRATOR_EGRESS__ALLOWED", "127.0.0.1"},  // the provider is on loopback
        {"ORCHESTRATOR_WORKFLOW__TRANSIENT_RETRIES", "0"},
        {"ORCHESTRATOR_WORKFLOW__LEASE", "2s"},
    };
    if (!operator_token) {
        std::erase_if(setup.env, [](const auto& kv) {
            return kv.first == "ORCHESTRATOR_IAM_CLIENTS__INITIAL_ACCESS_TOKEN";
        });
    }
    return setup;
}

bool WaitUntil(const std::function<bool()>& done, int seconds) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (std::chrono::steady_clock::now() < until) {
        if (done()) {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return done();
}

}  // namespace

TEST_CASE("a deployment's IAM client lives at the provider while it runs, one after a failed site", "[e2e][iam]") {
    OidcProvider& idp = OidcProvider::Shared("alpha");
    orch::sim::test::SiteSimProcess failing("");
    orch::sim::test::SiteSimProcess sim("");
    // SITE-FAIL is ranked first and refuses every create: its attempt fails and the next site is tried.
    failing.Fault(Json{{"api", "marathon"}, {"method", "POST"}, {"kind", "status"}, {"status", 503}, {"times", -1}});
    AuthedOrchestrator api(Setup(idp, {{"SITE-FAIL", failing.Url("marathon")}, {"SITE-UP", sim.Url("marathon")}}));
    const std::string bob = idp.UserToken("bob").access_token;
    const std::string id = api.Create(bob, kTemplate);
    const Json done = api.WaitFor(id, "CREATE_COMPLETE", bob, 60);
    CHECK(done["cloudProviderName"] == "SITE-UP");
    CHECK(ClientsOf(idp, id) == 1);  // SITE-FAIL's client went when the workflow moved on
    CHECK(api.Call("GET", "/deployments/" + id + "/template", bob).body.find("client_secret") == std::string::npos);

    REQUIRE(api.Call("DELETE", "/deployments/" + id, bob).status == 204);
    const bool deleted = WaitUntil([&] { return api.Call("GET", "/deployments/" + id, bob).status == 404; }, 60);
    INFO(api.Log());
    REQUIRE(deleted);
    CHECK(ClientsOf(idp, id) == 0);
    CHECK(api.Log().find("iam clients: registered") != api.Log().rfind("iam clients: registered"));  // two attempts
}

TEST_CASE("a kill -9 between registration and deploy leaves no client behind", "[e2e][iam][reliability]") {
    OidcProvider& idp = OidcProvider::Shared("alpha");
    // The site's first create takes 8 s: the client is registered and the deploy still in flight.
    orch::sim::test::SiteSimProcess sim("");
    sim.Fault(Json{{"api", "marathon"}, {"method", "POST"}, {"kind", "slow"}, {"delay_ms", 8000}, {"times", 1}});
    AuthedOrchestrator api(Setup(idp, {{"SITE-SLOW", sim.Url("marathon")}}));
    const std::string bob = idp.UserToken("bob").access_token;
    const std::string id = api.Create(bob, kTemplate);
    REQUIRE(WaitUntil([&] { return ClientsOf(idp, id) == 1; }, 30));

    api.KillAndRestart();
    // The deploy step, taken over by the new process, deletes the recorded client of the killed
    // one before registering its own: still exactly one.
    api.WaitFor(id, "CREATE_COMPLETE", bob, 60);
    INFO(api.Log());
    CHECK(api.Log().find("iam clients: registered") != std::string::npos);  // by the restarted process
    CHECK(ClientsOf(idp, id) == 1);
    REQUIRE(api.Call("DELETE", "/deployments/" + id, bob).status == 204);
    REQUIRE(WaitUntil([&] { return api.Call("GET", "/deployments/" + id, bob).status == 404; }, 60));
    CHECK(WaitUntil([&] { return ClientsOf(idp, id) == 0; }, 10));
}

TEST_CASE("a deployment that failed on every site keeps no client: the keeper's sweep deletes it", "[e2e][iam]") {
    OidcProvider& idp = OidcProvider::Shared("alpha");
    AuthedOrchestrator api(Setup(idp, {{"SITE-DOWN", "http://127.0.0.1:1"}}));
    const std::string bob = idp.UserToken("bob").access_token;
    const std::string id = api.Create(bob, kTemplate);
    api.WaitFor(id, "CREATE_FAILED", bob, 60);
    // Nothing deletes the deployment: the sweep finds it failed once the record is past the grace.
    INFO(api.Log());
    CHECK(WaitUntil([&] { return ClientsOf(idp, id) == 0; }, 20));
    CHECK(api.Log().find("iam clients: registered") != std::string::npos);  // there was one to delete
}

TEST_CASE("without an operator token the owner's own access token registers the client, as at IAM", "[e2e][iam]") {
    OidcProvider& idp = OidcProvider::Shared("alpha");
    orch::sim::test::SiteSimProcess sim("");
    AuthedOrchestrator api(Setup(idp, {{"SITE-UP", sim.Url("marathon")}}, /*operator_token=*/false));
    const std::string bob = idp.UserToken("bob").access_token;
    const std::string id = api.Create(bob, kTemplate);
    const Json done = api.WaitFor(id, "CREATE_COMPLETE", bob, 60);
    INFO(api.Log());
    CHECK(done["cloudProviderName"] == "SITE-UP");
    CHECK(ClientsOf(idp, id) == 1);
    REQUIRE(api.Call("DELETE", "/deployments/" + id, bob).status == 204);
    REQUIRE(WaitUntil([&] { return api.Call("GET", "/deployments/" + id, bob).status == 404; }, 60));
    CHECK(WaitUntil([&] { return ClientsOf(idp, id) == 0; }, 10));
}
