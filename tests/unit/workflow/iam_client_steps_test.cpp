// Per-deployment IAM clients in the deploy and delete steps and the client sweep, over the
// in-memory stores, a fake connector, a fake issuer registry and a ManualClock: a client is
// registered before each attempt's deploy and reaches the site in the template, an attempt
// that failed gives its client back before the next one registers, and the delete (or the
// sweep, for a deployment that is gone) leaves none.
#include "test_support/handler_harness.hpp"

#include <common/http_client.hpp>
#include <orchestrator/workflow/deployment_steps.hpp>
#include <orchestrator/workflow/engine.hpp>
#include <orchestrator/workflow/iam_client_sweep.hpp>
#include <orchestrator/workflow/iam_clients.hpp>

#include <catch2/catch.hpp>

#include <map>

namespace {

using orch::Json;
using orch::Result;
using orch::Status;
using orch::workflow::IamClientGrant;
using orch::workflow::IamClientRequest;
using std::chrono::minutes;
using std::chrono::seconds;

const std::string kTemplate =
    "tosca_definitions_version: tosca_simple_yaml_1_0\n"
    "topology_template:\n"
    "  node_templates:\n"
    "    sso:\n"
    "      type: tosca.nodes.indigo.iam.client\n"
    "      properties: {scopes: openid profile}\n"
    "    app:\n"
    "      type: tosca.nodes.indigo.Container.Application.Docker.Marathon\n";

// An issuer's registrations: the live clients per deployment, each with its record time.
class FakeIamRegistry final : public orch::workflow::IamClientRegistry {
   public:
    explicit FakeIamRegistry(const orch::Clock& clock) : clock_(clock) {}
    Result<IamClientGrant> Register(
        const std::string& deployment_id,
        const orch::domain::Owner& owner,
        std::string_view,
        const IamClientRequest& request
    ) override {
        if (unavailable) {
            return orch::Error::Unavailable("issuer down");
        }
        const std::string id = "c" + std::to_string(++serial_);
        live[id] = {deployment_id, clock_.now()};
        scopes = request.scopes;
        return IamClientGrant{request.node_name, owner.issuer, id, "secret-" + id};
    }
    Status ReleaseAll(const std::string& deployment_id) override {
        ++releases;
        if (unavailable) {
            return orch::Error::Unavailable("issuer down");
        }
        std::erase_if(live, [&](const auto& entry) { return entry.second.first == deployment_id; });
        return orch::Ok();
    }
    Result<std::vector<std::string>> DeploymentsWithClients(orch::Clock::WallTime before, int limit) override {
        std::vector<std::string> out;
        for (const auto& [id, entry] : live) {
            if (entry.second < before && static_cast<int>(out.size()) < limit) {
                out.push_back(entry.first);
            }
        }
        return out;
    }
    int LiveFor(const std::string& deployment_id) const {
        return static_cast<int>(std::count_if(live.begin(), live.end(), [&](const auto& entry) {
            return entry.second.first == deployment_id;
        }));
    }

    std::map<std::string, std::pair<std::string, orch::Clock::WallTime>> live;  // client id → deployment
    bool unavailable = false;
    int releases = 0;
    std::string scopes;

   private:
    const orch::Clock& clock_;
    int serial_ = 0;
};

// The harness' spec plus the template's IAM client node; remembers every text it built.
class ClientTemplates final : public orch::workflow::TemplateService {
   public:
    Result<orch::tosca::DeploymentSpec> Build(const std::string& text, const Json& parameters, const Json& accepted)
        override {
        texts.push_back(text);
        auto spec = inner_.Build(text, parameters, accepted);
        orch::tosca::NodeSpec client;
        client.name = "sso";
        client.type = std::string(orch::workflow::kIamClientType);
        client.type_chain = {client.type, "tosca.nodes.Root"};
        client.properties = Json{{"scopes", "openid profile"}};
        spec->nodes.insert(spec->nodes.begin(), client);
        return spec;
    }
    Status Check(const std::string&) override { return orch::Ok(); }
    std::vector<std::string> texts;

   private:
    orch::test::FakeTemplateService inner_{orch::test::SimpleSpec()};
};

// The fake connector, remembering the template each Create sent.
class RecordingConnector final : public orch::connectors::Connector {
   public:
    orch::connectors::TargetKind kind() const override { return inner.kind(); }
    orch::connectors::ConnectorResult<orch::connectors::Handle> Create(const orch::connectors::DeployRequest& request
    ) override {
        sent.push_back(request.template_text);
        return inner.Create(request);
    }
    orch::connectors::ConnectorResult<orch::connectors::Observation> Poll(
        const orch::connectors::Handle& handle, const orch::tosca::DeploymentSpec& spec
    ) override {
        return inner.Poll(handle, spec);
    }
    orch::connectors::ConnectorResult<orch::connectors::Handle> Update(
        const orch::connectors::Handle& handle, const orch::connectors::DeployRequest& request
    ) override {
        return inner.Update(handle, request);
    }
    orch::connectors::ConnectorResult<orch::connectors::Deletion> Delete(
        const orch::connectors::Handle& handle, bool force
    ) override {
        return inner.Delete(handle, force);
    }
    orch::connectors::ConnectorResult<bool> Act(
        const orch::connectors::Handle& handle, const std::string& physical_id, const std::string& action
    ) override {
        return inner.Act(handle, physical_id, action);
    }
    orch::test::FakeConnector inner;
    std::vector<std::string> sent;
};

orch::workflow::StepOptions Options() {
    orch::workflow::StepOptions o;
    o.first_poll = seconds(1);
    o.max_transient_retries = 2;
    return o;
}

struct Rig {
    orch::test::HandlerHarness api;
    orch::test::FakePlacer placer{{"SITE-A", "SITE-B"}};
    RecordingConnector connector;
    orch::test::FakeRegistry registry{connector};
    orch::test::FakeCredentials credentials;
    ClientTemplates templates;
    FakeIamRegistry issuer{api.clock};
    std::unique_ptr<orch::http::Client> http = std::move(*orch::http::MakeClient({}));
    orch::workflow::StepServices services{
        api.stores.workflow, templates, placer, registry, credentials, *http, api.clock, nullptr, nullptr, Options()};
    orch::workflow::Engine engine{api.stores.workflow, {.owner = "unit-test"}};

    explicit Rig(bool with_registry = true) {
        services.resolve_outputs = [](const auto&, const auto&) {
            return orch::tosca::OutputValues{};
        };
        services.iam_clients = with_registry ? &issuer : nullptr;
        orch::workflow::RegisterDeploymentSteps(engine, services);
    }
    int RunDue() {
        int ran = 0;
        while (engine.RunOneDue().value()) {
            REQUIRE(++ran < 100);
        }
        return ran;
    }
    std::string Create() {
        const Json body{{"template", kTemplate}, {"userGroup", "users"}};
        const auto res = api.Call("POST", "/deployments", body.dump());
        INFO(res.body);
        REQUIRE(res.status == 201);
        return Json::parse(res.body).value("uuid", "");
    }
    orch::domain::Deployment Get(const std::string& id) { return api.stores.deployments.Get(id).value().value(); }
    void RunUntil(const std::string& id, orch::domain::Status status) {
        for (int i = 0; i < 30 && Get(id).status != status; ++i) {
            RunDue();
            api.clock.Advance(seconds(2));
        }
        REQUIRE(Get(id).status == status);
    }
};

}  // namespace

TEST_CASE("an IAM client is registered before the deploy and reaches the site in the template", "[workflow][iam]") {
    Rig rig;
    const std::string id = rig.Create();
    rig.RunUntil(id, orch::domain::Status::kCreateComplete);
    REQUIRE(rig.issuer.live.size() == 1);
    const std::string client_id = rig.issuer.live.begin()->first;
    CHECK(rig.issuer.scopes == "openid profile");
    REQUIRE(rig.connector.sent.size() == 1);
    const std::string& sent = rig.connector.sent.front();
    CHECK(sent.find("client_id: " + client_id) != std::string::npos);
    CHECK(sent.find("client_secret: secret-" + client_id) != std::string::npos);
    // The spec the site got was built from that text, and the stored template holds no secret.
    CHECK(std::find(rig.templates.texts.begin(), rig.templates.texts.end(), sent) != rig.templates.texts.end());
    CHECK(rig.api.Call("GET", "/deployments/" + id + "/template").body.find("secret-") == std::string::npos);
}

TEST_CASE("an attempt that failed gives its client back before the next site's registers", "[workflow][iam]") {
    Rig rig;
    rig.connector.inner.SetBehaviour("SITE-A", {.create_fails = orch::connectors::FailureKind::kTryAnotherSite});
    const std::string id = rig.Create();
    rig.RunUntil(id, orch::domain::Status::kCreateComplete);
    CHECK(rig.Get(id).cloud_provider_name == "SITE-B");
    REQUIRE(rig.connector.sent.size() == 2);
    // Two registrations, one live: the one SITE-B's template names.
    CHECK(rig.issuer.LiveFor(id) == 1);
    CHECK(rig.connector.sent[1].find("client_id: " + rig.issuer.live.begin()->first) != std::string::npos);
    CHECK(rig.connector.sent[0].find("client_id: " + rig.issuer.live.begin()->first) == std::string::npos);
}

TEST_CASE("deleting the deployment deletes its clients, an issuer down delays the delete", "[workflow][iam]") {
    Rig rig;
    const std::string id = rig.Create();
    rig.RunUntil(id, orch::domain::Status::kCreateComplete);
    REQUIRE(rig.issuer.LiveFor(id) == 1);
    rig.issuer.unavailable = true;
    rig.issuer.releases = 0;
    REQUIRE(rig.api.Call("DELETE", "/deployments/" + id).status == 204);
    for (int i = 0; i < 10 && rig.issuer.releases == 0; ++i) {
        rig.RunDue();
        rig.api.clock.Advance(seconds(1));
    }
    REQUIRE(rig.issuer.releases == 1);
    CHECK(rig.Get(id).status == orch::domain::Status::kDeleteInProgress);  // retried while the budget lasts
    rig.issuer.unavailable = false;
    rig.RunUntil(id, orch::domain::Status::kDeleteComplete);
    CHECK(rig.issuer.LiveFor(id) == 0);
}

TEST_CASE(
    "a transient registration failure is retried, and without IAM clients configured the create fails",
    "[workflow][iam]"
) {
    SECTION("retried") {
        Rig rig;
        rig.issuer.unavailable = true;
        const std::string id = rig.Create();
        rig.RunDue();
        CHECK(rig.connector.sent.empty());
        rig.issuer.unavailable = false;
        rig.RunUntil(id, orch::domain::Status::kCreateComplete);
        CHECK(rig.issuer.LiveFor(id) == 1);
    }
    SECTION("not configured") {
        Rig rig(false);
        const std::string id = rig.Create();
        rig.RunUntil(id, orch::domain::Status::kCreateFailed);
        CHECK(rig.Get(id).status_reason.find("iam_clients.enabled") != std::string::npos);
        CHECK(rig.connector.sent.empty());
    }
}

TEST_CASE("the sweep releases the clients of deployments that are gone, after the grace", "[workflow][iam]") {
    Rig rig;
    const std::string live = rig.Create();
    rig.RunUntil(live, orch::domain::Status::kCreateComplete);
    REQUIRE(rig.issuer.LiveFor(live) == 1);
    // A client left behind by a deployment whose record is gone (a crash between delete and release).
    rig.issuer.live["orphan"] = {"00000000-0000-4000-8000-00000000dead", rig.api.clock.now()};
    orch::workflow::IamClientSweeper sweeper(
        rig.issuer, rig.api.stores.workflow, rig.api.clock, {.interval = seconds(60), .grace = minutes(10), .batch = 10}
    );
    CHECK(sweeper.SweepOnce().value() == 0);  // within the grace: a registration may be in flight
    rig.api.clock.Advance(minutes(11));
    CHECK(sweeper.SweepOnce().value() == 1);
    CHECK(rig.issuer.live.count("orphan") == 0);
    CHECK(rig.issuer.LiveFor(live) == 1);  // a deployment that runs keeps its client
}
