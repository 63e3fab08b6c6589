// What the original writes into the TOSCA before sending it to IM and the user's template does
// not carry: the deployment tags on the VMs, the catalogue's network names on network nodes and
// the ElasticCluster's callback settings. Each is asserted on the document the simulated IM
// received (which it parsed with our engine, so a property the type does not declare would have
// been refused there).
#include "im_test_util.hpp"

#include <catch2/catch.hpp>
#include <yaml-cpp/yaml.h>

using namespace orch::connectors;
using namespace orch::connectors::test;
using orch::Json;

namespace {

constexpr char kDeployment[] = "7b1e3c1a-0000-4000-8000-0000000000f1";

struct Sent {
    YAML::Node nodes;
    std::string body;
};

// Creates `corpus_path` (inputs at their defaults) on the simulated IM and returns the
// node_templates IM received.
// The owner of the deployments these tests create, as the workflow hands it to the connector.
struct OwnerOf {
    std::string issuer, name, email;
};

Sent CreateText(
    const std::string& text,
    SiteTarget target,
    const std::string& url,
    const OwnerOf& owner = {},
    ImOptions options = {}
) {
    auto site = ImSite();
    SimHttpClient client(*site);
    SharedClientFactory factory(client);
    options.endpoint = "http://im.sim";
    options.orchestrator_url = url;
    ImConnector connector(factory, std::move(options));
    auto check = Engine().Check(text, orch::tosca::TemplateRequest{});
    INFO(check.ErrorMessage("template"));
    REQUIRE(check.valid());
    const orch::tosca::DeploymentSpec spec = *check.spec;
    DeployRequest request = Request(kDeployment, spec, std::move(target));
    request.template_text = text;
    request.placements = VmPlacements(spec);
    request.owner_issuer = owner.issuer;
    request.owner_name = owner.name;
    request.owner_email = owner.email;
    Ok(connector.Create(request));  // the simulator refuses a template its parser rejects
    const auto sent = client.Sent();
    REQUIRE(sent.size() == 1);
    const YAML::Node root = YAML::Load(sent[0].body);
    return {root["topology_template"]["node_templates"], sent[0].body};
}

Sent CreateCorpus(
    const std::string& corpus_path,
    SiteTarget target,
    const std::string& url,
    const OwnerOf& owner = {},
    ImOptions options = {}
) {
    return CreateText(ReadFile(CorpusDir() + "/" + corpus_path), std::move(target), url, owner, std::move(options));
}

}  // namespace

TEST_CASE("IM template: VM tags and network names from the catalogue", "[connectors][im]") {
    SiteTarget target = ImTarget();
    target.options["network"] = "site-private";
    target.options["public_network"] = "site-external";
    target.options["proxy_host"] = "proxy.site.test";
    // master types: tosca.nodes.indigo.Compute declares `tags`; tosca.nodes.network.Network
    // declares network_name but not proxy_host (tosca.nodes.indigo.network.Network does).
    const Sent sent = CreateCorpus("indigo-dc-tosca-templates/slurm_cluster.yaml", target, "https://paas.test/orch");
    for (const char* vm : {"fe_server", "wn_server"}) {
        INFO(vm);
        const YAML::Node tags = sent.nodes[vm]["properties"]["tags"];
        REQUIRE(tags.IsMap());
        CHECK(tags["PAAS_URL"].as<std::string>() == "https://paas.test/orch");
        CHECK(tags["PAAS_DEP_UUID"].as<std::string>() == kDeployment);
    }
    CHECK(sent.nodes["pub_network"]["properties"]["network_name"].as<std::string>() == "site-external");
    CHECK(sent.nodes["priv_network"]["properties"]["network_name"].as<std::string>() == "site-private");
    CHECK_FALSE(sent.nodes["priv_network"]["properties"]["proxy_host"].IsDefined());
    CHECK(sent.body.find("proxy.site.test") == std::string::npos);
}

TEST_CASE("IM template: nothing is written where the type does not declare it", "[connectors][im]") {
    // v4.0.0's tosca.nodes.indigo.Compute has no `tags`: IM's parser would refuse them.
    const Sent sent = CreateText(
        R"(tosca_definitions_version: tosca_simple_yaml_1_0
imports:
  - indigo_custom_types: https://raw.githubusercontent.com/indigo-dc/tosca-types/v4.0.0/custom_types.yaml
topology_template:
  node_templates:
    server:
      type: tosca.nodes.indigo.Compute
)",
        ImTarget(),
        "https://paas.test"
    );
    REQUIRE(sent.nodes["server"].IsMap());
    CHECK(sent.body.find("PAAS_DEP_UUID") == std::string::npos);
}

TEST_CASE("IM template: the ElasticCluster gets the deployment id, orchestrator URL and token", "[connectors][im]") {
    SiteTarget target = ImTarget();  // the user's token is token-1
    const Sent sent = CreateCorpus("indigo-dc-tosca-types/examples/elastic_cluster.yaml", target, "https://paas.test");
    const YAML::Node cluster = sent.nodes["elastic_cluster_front_end"]["properties"];
    // The template's placeholders are replaced, as the original does.
    CHECK(cluster["deployment_id"].as<std::string>() == kDeployment);
    CHECK(cluster["orchestrator_url"].as<std::string>() == "https://paas.test");
    CHECK(cluster["iam_access_token"].as<std::string>() == "token-1");
}

TEST_CASE("IM template: the owner's name and e-mail tag the VMs", "[connectors][im]") {
    const OwnerOf owner{"https://iam.test/", "alice.u", "alice@example.org"};
    const Sent sent =
        CreateCorpus("indigo-dc-tosca-templates/slurm_cluster.yaml", ImTarget(), "https://paas.test", owner);
    for (const char* vm : {"fe_server", "wn_server"}) {
        INFO(vm);
        const YAML::Node tags = sent.nodes[vm]["properties"]["tags"];
        REQUIRE(tags.IsMap());
        CHECK(tags["PAAS_DEP_USER"].as<std::string>() == "alice.u");
        CHECK(tags["PAAS_DEP_USER_EMAIL"].as<std::string>() == "alice@example.org");
        CHECK(tags["PAAS_DEP_UUID"].as<std::string>() == kDeployment);
    }
}

TEST_CASE("IM template: an unknown owner sends no user tags", "[connectors][im]") {
    const Sent sent = CreateCorpus("indigo-dc-tosca-templates/slurm_cluster.yaml", ImTarget(), "https://paas.test");
    CHECK(sent.body.find("PAAS_DEP_USER") == std::string::npos);
}

TEST_CASE("IM template: a hostile name cannot forge another VM tag", "[connectors][im][security]") {
    // IM joins the tags as "K=V,K=V" into RADL's instance_tags: ',' and '=' would add a tag.
    const OwnerOf owner{
        "https://iam.test/", "eve,PAAS_DEP_UUID=other\n" + std::string(400, 'x'), "eve@example.org\n,a=b"};
    const Sent sent =
        CreateCorpus("indigo-dc-tosca-templates/slurm_cluster.yaml", ImTarget(), "https://paas.test", owner);
    const YAML::Node tags = sent.nodes["fe_server"]["properties"]["tags"];
    const auto user = tags["PAAS_DEP_USER"].as<std::string>();
    CHECK(user.find_first_of(",=\n") == std::string::npos);
    CHECK(user.rfind("evePAAS_DEP_UUIDother", 0) == 0);
    CHECK(user.size() == 256);  // bounded
    CHECK(tags["PAAS_DEP_USER_EMAIL"].as<std::string>() == "eve@example.orgab");
    CHECK(tags["PAAS_DEP_UUID"].as<std::string>() == kDeployment);
}

TEST_CASE("IM template: the ElasticCluster gets the CLUES client of the owner's issuer", "[connectors][im]") {
    ImOptions options;
    options.clues_clients["https://iam.test/"] = CluesClient{"clues-id", "clues-secret"};
    options.clues_clients["https://other.test/"] = CluesClient{"other-id", "other-secret"};
    const OwnerOf owner{"https://iam.test/", "alice.u", "alice@example.org"};
    const Sent sent = CreateCorpus(
        "indigo-dc-tosca-types/examples/elastic_cluster.yaml", ImTarget(), "https://paas.test", owner, options
    );
    const YAML::Node cluster = sent.nodes["elastic_cluster_front_end"]["properties"];
    CHECK(cluster["iam_clues_client_id"].as<std::string>() == "clues-id");
    CHECK(cluster["iam_clues_client_secret"].as<std::string>() == "clues-secret");
    CHECK(sent.body.find("other-secret") == std::string::npos);

    // Another issuer's user: no client of a foreign issuer is handed out.
    const Sent foreign = CreateCorpus(
        "indigo-dc-tosca-types/examples/elastic_cluster.yaml",
        ImTarget(),
        "https://paas.test",
        OwnerOf{"https://third.test/", "", ""},
        options
    );
    CHECK(foreign.body.find("clues-secret") == std::string::npos);
    CHECK(foreign.body.find("other-secret") == std::string::npos);
}
