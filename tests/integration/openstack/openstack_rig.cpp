#include "openstack_rig.hpp"

#include <test_support/connector_poll.hpp>
#include <test_support/test_env.hpp>

#include <memory>
#include <stdexcept>
#include <thread>

namespace orch::test::openstack {

const Json& Rig() {
    static const Json rig = [] {
        const std::string dir = BinaryDir() + "/test-openstack";
        const std::string text = ReadRigValue(dir, "rig.json", "OpenStack rig", "openstack");
        auto parsed = ParseJson(text);
        if (!parsed) {
            throw std::runtime_error(dir + "/rig.json: " + parsed.error().message);
        }
        return *parsed;
    }();
    return rig;
}

connectors::SiteTarget Target(Auth auth) {
    const Json& rig = Rig();
    connectors::SiteTarget target;
    target.site_id = "openstack-rig";
    target.service_id = "openstack-rig-compute";
    target.kind = connectors::TargetKind::kOpenStack;
    target.endpoint = rig["auth_url"];
    target.region = rig["region"];
    target.options = {{"network", "none"}};
    switch (auth) {
        case Auth::kPassword:
            target.project = rig["project"]["name"];
            target.credentials.username = rig["user"]["name"];
            target.credentials.password = rig["user"]["password"];
            break;
        case Auth::kApplicationCredential:
            target.credentials.application_credential_id = rig["app_credential"]["id"];
            target.credentials.application_credential_secret = rig["app_credential"]["secret"];
            break;
        case Auth::kOidcFederation:
            target.project = rig["project"]["id"];
            target.credentials.bearer_token = rig["oidc"]["access_token"];
            target.options["identity_provider"] = rig["oidc"]["identity_provider"];
            target.options["protocol"] = rig["oidc"]["protocol"];
            break;
    }
    return target;
}

tosca::NodeSpec VmNode(const std::string& name) {
    tosca::NodeSpec node;
    node.name = name;
    node.type = "tosca.nodes.indigo.Compute";
    node.type_chain = {"tosca.nodes.indigo.Compute", "tosca.nodes.Compute", "tosca.nodes.Root"};
    return node;
}

connectors::NodePlacement Placement(const std::string& flavor) {
    const Json& rig = Rig();
    return {rig["flavors"][flavor]["id"], flavor, rig["image"]["id"], rig["image"]["name"]};
}

http::Client& Client() {
    static const std::unique_ptr<http::Client> client = [] {
        auto made = http::MakeClient({});
        if (!made) {
            throw std::runtime_error(made.error().message);
        }
        return std::move(*made);
    }();
    return *client;
}

connectors::SiteClientFactory& Clients() {
    static connectors::SharedClientFactory factory(Client());
    return factory;
}

std::pair<int, Json> AdminNovaGet(const std::string& path) {
    const Json& rig = Rig();
    http::ClientRequest auth;
    auth.method = "POST";
    auth.url = rig["auth_url"].get<std::string>() + "/auth/tokens";
    auth.headers = {{"Content-Type", "application/json"}};
    auth.timeout = std::chrono::seconds(60);  // the rig answers slowly on a loaded machine
    auth.body = Json{{"auth",
                      {{"identity",
                        {{"methods", {"password"}},
                         {"password",
                          {{"user",
                            {{"name", rig["admin"]["name"]},
                             {"domain", {{"id", "default"}}},
                             {"password", rig["admin"]["password"]}}}}}}},
                       {"scope", {{"project", {{"name", rig["admin"]["project"]}, {"domain", {{"id", "default"}}}}}}}}}}
                    .dump();
    auto token = Client().Send(auth);
    if (!token || token->status != 201) {
        throw std::runtime_error("admin login to the rig failed");
    }
    http::ClientRequest get;
    get.url = rig["compute_url"].get<std::string>() + path;
    get.headers = {{"X-Auth-Token", token->Header("X-Subject-Token")}, {"OpenStack-API-Version", "compute 2.52"}};
    get.timeout = std::chrono::seconds(60);
    auto response = Client().Send(get);
    if (!response) {
        throw std::runtime_error("admin GET " + path + ": " + response.error().message);
    }
    auto body = ParseJson(response->body);
    return {response->status, body ? *body : Json()};
}

connectors::Observation PollUntil(
    connectors::Connector& connector,
    const connectors::Handle& handle,
    const tosca::DeploymentSpec& spec,
    const std::function<bool(const connectors::Observation&)>& done,
    std::chrono::seconds limit
) {
    return PollConnectorUntil(connector, handle, spec, done, limit, std::chrono::milliseconds(500));
}

const Clock& RealClock() {
    static const SystemClock clock;
    return clock;
}

connectors::OpenStackOptions ConnectorOptions() {
    connectors::OpenStackOptions options;
    options.call_timeout = std::chrono::seconds(60);
    return options;
}

}  // namespace orch::test::openstack
