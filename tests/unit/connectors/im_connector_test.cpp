// The IM connector against the simulated Infrastructure Manager (in-process, no sockets): every
// request is checked by the simulator against IM's OpenAPI document and auth-header rules, and
// the TOSCA it receives is parsed by our engine.
#include "im_test_util.hpp"

#include <connectors/im_auth.hpp>
#include <connectors/im_template.hpp>

#include <catch2/catch.hpp>

using namespace orch::connectors;
using namespace orch::connectors::test;
using orch::Json;

namespace {

constexpr char kDeployment[] = "7b1e3c1a-0000-4000-8000-00000000000a";

constexpr char kTemplate[] = R"(tosca_definitions_version: tosca_simple_yaml_1_0
imports:
  - indigo_custom_types: https://raw.githubusercontent.com/indigo-dc/tosca-types/master/custom_types.yaml
topology_template:
  inputs:
    cpus:
      type: integer
      default: 1
    gpus:
      type: integer
      default: 0
  node_templates:
    server:
      type: tosca.nodes.indigo.Compute
      capabilities:
        endpoint:
          properties:
            network_name: PUBLIC
        scalable:
          properties:
            count: 2
        host:
          properties:
            num_cpus: { get_input: cpus }
            mem_size: 2 GB
            num_gpus: { get_input: gpus }
        os:
          properties:
            type: linux
  outputs:
    node_ip:
      value: { get_attribute: [ server, public_address, 0 ] }
    node_ips:
      value: { get_attribute: [ server, public_address ] }
    node_creds:
      value: { get_attribute: [ server, endpoint, credential, 0 ] }
)";

struct Fixture {
    std::unique_ptr<orch::sim::SiteSim> site = ImSite();
    SimHttpClient client{*site};
    SharedClientFactory factory{client};
    ImConnector connector{factory, ImOptions{.endpoint = "http://im.sim"}};
    orch::tosca::DeploymentSpec spec;

    DeployRequest Make(const Json& inputs, SiteTarget target = ImTarget()) {
        orch::tosca::TemplateRequest parse;
        parse.inputs = inputs;
        auto check = Engine().Check(kTemplate, parse);
        REQUIRE(check.valid());
        spec = *check.spec;
        DeployRequest request = Request(kDeployment, spec, std::move(target));
        request.template_text = kTemplate;
        request.placements = VmPlacements(spec);
        return request;
    }
};

}  // namespace

TEST_CASE(
    "IM: create sends the rewritten TOSCA and the records, poll reaches configured with outputs", "[connectors][im]"
) {
    Fixture f;
    const Handle handle = Ok(f.connector.Create(f.Make(Json{{"cpus", 4}, {"gpus", 1}})));
    CHECK(IsImHandle(handle));
    const auto sent = f.client.Sent();
    REQUIRE(sent.size() == 1);
    CHECK(sent[0].url == "http://im.sim/infrastructures?async=true");
    CHECK(orch::http::FindHeader(sent[0].headers, "Content-Type") == "text/yaml");
    const std::string auth = orch::http::FindHeader(sent[0].headers, "Authorization");
    CHECK(
        auth ==
        "type = InfrastructureManager; token = token-1\\nid = SIM-SITE_nova; type = OpenStack; "
        "host = https://keystone.sim:5000/v3; username = egi.eu; tenant = openid; password = token-1; "
        "auth_version = 3.x_oidc_access_token; domain = demo-project; service_region = RegionOne"
    );
    // Inputs resolved, the inputs section gone, placement's choices written in.
    CHECK(sent[0].body.find("get_input") == std::string::npos);
    CHECK(sent[0].body.find("inputs:") == std::string::npos);
    CHECK(sent[0].body.find("instance_type: m1.medium") != std::string::npos);
    CHECK(sent[0].body.find("image: ost://keystone.sim/img-ubuntu-22") != std::string::npos);
    CHECK(sent[0].body.find("num_gpus: 1") != std::string::npos);

    const Json objects = f.site->Objects()["im"];
    REQUIRE(objects.size() == 1);
    CHECK(objects[0]["cloud_type"] == "OpenStack");
    REQUIRE(objects[0]["vms"].size() == 2);
    CHECK(objects[0]["vms"][0]["instance_type"] == "m1.medium");
    CHECK(objects[0]["vms"][0]["gpus"] == 1);

    Observation first = Ok(f.connector.Poll(handle, f.spec));
    CHECK(first.phase == Phase::kInProgress);
    // What IM says it is doing now: its latest contextualisation line.
    REQUIRE(first.site_message);
    CHECK(first.site_message->find("Infrastructure ") != std::string::npos);
    CHECK(first.site_message->find(" created on OpenStack cloud") != std::string::npos);
    CHECK(first.site_message->find('\n') == std::string::npos);
    CHECK(first.instances.size() == 2);
    CHECK(first.instances[0].state == InstanceStatus::kCreating);

    const Observation done = PollUntilSettled(f.connector, handle, f.spec, *f.site);
    REQUIRE(done.phase == Phase::kReady);
    REQUIRE(done.instances.size() == 2);
    CHECK(done.instances[0].node == "server");
    CHECK(done.instances[1].index == 1);
    CHECK(done.instances[0].state == InstanceStatus::kStarted);
    CHECK(done.instances[0].attributes["public_address"].size() == 1);
    CHECK(done.outputs["node_ip"] == done.instances[0].attributes["public_address"][0]);
    CHECK(done.outputs["node_ips"].size() == 2);
    // A scaled node's endpoint credential is its first VM's, as IM answers (found end to end:
    // per-instance attributes made this output an error text).
    CHECK(done.outputs["node_creds"]["user"] == "cloudadm");
    CHECK(done.log.find("finished successfully") != std::string::npos);
    CHECK(f.site->Rejections().empty());

    CHECK(Ok(f.connector.Act(handle, done.instances[0].physical_id, "stop")));
    CHECK(f.site->Objects()["im"][0]["vms"][0]["state"] == "stopped");

    CHECK(Ok(f.connector.Delete(handle, false)) == Deletion::kInProgress);
    const Observation gone = PollUntilSettled(f.connector, handle, f.spec, *f.site);
    CHECK(gone.phase == Phase::kGone);
    CHECK(Ok(f.connector.Delete(handle, false)) == Deletion::kComplete);
}

TEST_CASE("IM: a contextualisation failure ends the attempt with IM's reason, for the next site", "[connectors][im]") {
    Fixture f;
    REQUIRE(f.site->AddFault(Json{
        {"api", "im"}, {"method", "POST"}, {"path", "/infrastructures"}, {"kind", "unconfigured"}}));
    const Handle handle = Ok(f.connector.Create(f.Make(Json::object())));
    const Observation failed = PollUntilSettled(f.connector, handle, f.spec, *f.site);
    REQUIRE(failed.phase == Phase::kFailed);
    CHECK(failed.failure == FailureKind::kTryAnotherSite);
    CHECK(failed.reason.find("is unconfigured") != std::string::npos);
    CHECK(failed.reason.find("simulated Ansible failure") != std::string::npos);

    // The rule is spent: the next site's attempt comes up.
    const Handle next = Ok(f.connector.Create(f.Make(Json::object(), ImTarget("SECOND-SITE"))));
    CHECK(PollUntilSettled(f.connector, next, f.spec, *f.site).phase == Phase::kReady);
}

TEST_CASE("IM: a VM that cannot boot fails the infrastructure with the cloud's words", "[connectors][im]") {
    Fixture f;
    REQUIRE(f.site->AddFault(Json{{"api", "im"}, {"method", "POST"}, {"kind", "vm_failed"}}));
    const Handle handle = Ok(f.connector.Create(f.Make(Json::object())));
    const Observation failed = PollUntilSettled(f.connector, handle, f.spec, *f.site);
    REQUIRE(failed.phase == Phase::kFailed);
    CHECK(failed.reason.find("is failed") != std::string::npos);
    CHECK(failed.reason.find("No valid host") != std::string::npos);
    CHECK(failed.instances[0].state == InstanceStatus::kError);
}

TEST_CASE("IM: IM refusing the create (401, 5xx) is classified", "[connectors][im]") {
    Fixture f;
    REQUIRE(f.site->AddFault(Json{{"api", "im"}, {"method", "POST"}, {"status", 503}}));
    CHECK(Fails(f.connector.Create(f.Make(Json::object()))).kind == FailureKind::kRetryHere);

    orch::sim::SimConfig config = orch::sim::SimConfig::Default();
    config.tokens = {"another-token"};
    auto strict = ImSite(config);
    SimHttpClient client(*strict);
    SharedClientFactory factory(client);
    ImConnector connector(factory, ImOptions{.endpoint = "http://im.sim"});
    const Failure refused = Fails(connector.Create(f.Make(Json::object())));
    CHECK(refused.kind == FailureKind::kTryAnotherSite);
    CHECK(refused.message.find("token is not valid") != std::string::npos);
}

TEST_CASE("IM auth header: password, application credential, OpenNebula, EC2, EGI records", "[connectors][im]") {
    SiteTarget target = ImTarget();
    target.credentials = {};
    target.credentials.username = "alice";
    target.credentials.password = "pw";
    CHECK(
        Ok(ImAuthorization(target, "im-user", "im-pw")) ==
        "type = InfrastructureManager; username = im-user; password = im-pw\\nid = SIM-SITE_nova; type = OpenStack; "
        "host = https://keystone.sim:5000/v3; username = alice; password = pw; tenant = demo-project; "
        "auth_version = 3.x_password; domain = demo-project; service_region = RegionOne"
    );
    target.credentials = {};
    target.credentials.bearer_token = "t";
    target.credentials.application_credential_id = "ac";
    target.credentials.application_credential_secret = "s";
    CHECK(
        Ok(ImAuthorization(target, "", "")).find("username = ac; password = s; auth_version = 3.x_appcred") !=
        std::string::npos
    );
    target.options["im_cloud_type"] = "OpenNebula";
    target.endpoint = "https://one.example:2633";
    target.credentials = {};
    target.credentials.bearer_token = "t";
    CHECK(
        Ok(ImAuthorization(target, "", "")) ==
        "type = InfrastructureManager; token = t\\nid = SIM-SITE_nova; type = OpenNebula; "
        "host = https://one.example:2633; token = t"
    );
    target.options["im_cloud_type"] = "EGI";
    target.options["sitename"] = "CESGA";
    CHECK(
        Ok(ImAuthorization(target, "", "")).find("type = EGI; host = CESGA; vo = demo-project; token = t") !=
        std::string::npos
    );
    target.options["im_cloud_type"] = "EC2";
    target.credentials.username = "AKIA";
    target.credentials.password = "secret";
    CHECK(
        Ok(ImAuthorization(target, "", "")).find("type = EC2; username = AKIA; password = secret") != std::string::npos
    );
}

TEST_CASE("IM auth header: values that would forge entries or records are refused", "[connectors][im][security]") {
    for (const std::string bad : {"egi.eu; type = OpenStack", "x\\nid = evil; type = EC2", "line\nbreak"}) {
        SiteTarget target = ImTarget();
        target.options["identity_provider"] = bad;
        const Failure refused = Fails(ImAuthorization(target, "", ""));
        CHECK(refused.kind == FailureKind::kTryAnotherSite);
        CHECK(refused.message.find(bad) == std::string::npos);  // the value itself is not echoed
    }
}

TEST_CASE("IM: the router sends a site through IM only when the catalogue or config says so", "[connectors][im]") {
    auto site = ImSite();
    SimHttpClient client(*site);
    SharedClientFactory factory(client);
    ImConnector no_global(factory, ImOptions{});
    ImConnector global(factory, ImOptions{.endpoint = "http://im.sim"});
    struct Native final : Connector {
        TargetKind kind() const override { return TargetKind::kOpenStack; }
        ConnectorResult<Handle> Create(const DeployRequest&) override { return Handle{}; }
        ConnectorResult<Observation> Poll(const Handle&, const orch::tosca::DeploymentSpec&) override {
            return Observation{};
        }
        ConnectorResult<Handle> Update(const Handle& h, const DeployRequest&) override { return h; }
        ConnectorResult<Deletion> Delete(const Handle&, bool) override { return Deletion::kComplete; }
        ConnectorResult<bool> Act(const Handle&, const std::string&, const std::string&) override { return true; }
    } native;
    SiteTarget plain = ImTarget();
    SiteTarget own_im = ImTarget();
    own_im.options["im_endpoint"] = "http://im.sim";
    SiteTarget opted_out = ImTarget();
    opted_out.options["deployment_path"] = "native";
    CHECK_FALSE(VmRouter(native, no_global).UsesIm(plain));
    CHECK(VmRouter(native, no_global).UsesIm(own_im));
    CHECK(VmRouter(native, global).UsesIm(plain));
    CHECK_FALSE(VmRouter(native, global).UsesIm(opted_out));
    // An OpenNebula site has no direct connector: a stray deployment_path: native cannot send
    // its VMs to Nova.
    SiteTarget nebula = opted_out;
    nebula.options["im_cloud_type"] = "OpenNebula";
    CHECK(VmRouter(native, global).UsesIm(nebula));
    Handle im_handle;
    im_handle.target = ImTarget();
    im_handle.state = {{"im_infrastructure", "inf-9"}, {"im_endpoint", "http://im.sim"}};
    // An existing IM deployment stays with IM even when the site was switched to native.
    CHECK(Ok(VmRouter(native, no_global).Poll(im_handle, orch::tosca::DeploymentSpec{})).phase == Phase::kGone);
}
