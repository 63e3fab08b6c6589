#include "authed_orchestrator.hpp"

#include "test_support/poll_deployment.hpp"

#include <common/uuid.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

namespace orch::test {
namespace {

std::string WriteConfig(const AuthedSetup& setup) {
    const std::string dir = BinaryDir() + "/e2e-auth-" + RandomUuid().substr(0, 8);
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/catalogue.yaml") << setup.catalogue_yaml;
    std::ofstream(dir + "/sla.yaml") << setup.sla_yaml;
    std::ofstream config(dir + "/orchestrator.yaml");
    // Client credentials are the test provider's; the token key is a fixed test value.
    config << "auth:\n  mode: oidc\n  token_key: " << std::string(64, '7') << "\n"
           << setup.auth_extra << "  issuers:\n";
    for (const auto& [name, issuer] : setup.issuers) {
        config << "    " << name << ":\n      issuer: " << issuer
               << "\n      client_id: orchestrator\n      client_secret: orchestrator-secret\n"
               << setup.issuer_extra;
    }
    config << "tosca:\n  mirrors:\n    \"https://raw.githubusercontent.com/indigo-dc/tosca-types/\": " << SharedDir()
           << "/tosca-corpus/indigo-dc-tosca-types/refs/\n"
           << "    \"https://paas.example.org/types/\": " << SourceDir() << "/tosca/profiles/\n"
           << "placement:\n";
    if (setup.placement_yaml.empty()) {
        config << "  catalogue: {type: file, path: " << dir << "/catalogue.yaml}\n  sla: {type: file, path: " << dir
               << "/sla.yaml}\n";
    } else {
        config << setup.placement_yaml;
    }
    if (!setup.default_group.empty()) {
        config << "  default_group: " << setup.default_group << "\n";
    }
    config << "workflow:\n  first_poll: 100ms\n  idle_poll: 50ms\n  max_poll: 500ms\n";
    return dir + "/orchestrator.yaml";
}

std::unique_ptr<http::Client> NewClient() {
    auto client = http::MakeClient({});
    if (!client) {
        throw std::runtime_error(client.error().message);
    }
    return std::move(*client);
}

}  // namespace

AuthedOrchestrator::AuthedOrchestrator(const AuthedSetup& setup)
    : env_(setup.env), config_file_(WriteConfig(setup)), client_(NewClient()) {
    // The environment wins over the file: OrchestratorProcess defaults ORCHESTRATOR_AUTH__MODE to
    // disabled, so it is set back to oidc here.
    env_["ORCHESTRATOR_AUTH__MODE"] = "oidc";
    Start();
}

void AuthedOrchestrator::Start() {
    process_ = std::make_unique<OrchestratorProcess>(db_.dsn(), env_, config_file_);
    REQUIRE(WaitForStatus(process_->BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));
}

void AuthedOrchestrator::KillAndRestart() {
    REQUIRE(process_->process().Stop(SIGKILL, std::chrono::seconds(10)) == 128 + SIGKILL);
    Start();
}

http::ClientResponse AuthedOrchestrator::CallWithHeader(
    const std::string& method, const std::string& path, const std::string& authorization, const std::string& body
) {
    http::ClientRequest req;
    req.method = method;
    req.url = process_->BaseUrl() + path;
    req.body = body;
    req.headers = {{"Content-Type", "application/json"}};
    if (!authorization.empty()) {
        req.headers.emplace_back("Authorization", authorization);
    }
    req.timeout = std::chrono::seconds(30);
    auto res = client_->Send(req);
    REQUIRE(res);
    return *res;
}

http::ClientResponse AuthedOrchestrator::Call(
    const std::string& method, const std::string& path, const std::string& token, const std::string& body
) {
    return CallWithHeader(method, path, token.empty() ? "" : "Bearer " + token, body);
}

std::string AuthedOrchestrator::Create(const std::string& token, const std::string& template_text, Json body) {
    body["template"] = template_text;
    if (!body.contains("userGroup")) {
        body["userGroup"] = "users";  // every test user with groups is in it; a token with groups must name one
    }
    const auto res = Call("POST", "/deployments", token, body.dump());
    INFO(res.body);
    REQUIRE(res.status == 201);
    return Json::parse(res.body)["uuid"];
}

Json AuthedOrchestrator::WaitFor(
    const std::string& id, const std::string& status, const std::string& token, int seconds
) {
    return WaitFor(
        id, status, [&token] { return token; }, seconds
    );
}

Json AuthedOrchestrator::WaitFor(
    const std::string& id, const std::string& status, const std::function<std::string()>& token, int seconds
) {
    const auto polled = PollDeployment(
        [&] {
            const auto res = Call("GET", "/deployments/" + id, token());
            REQUIRE(res.status == 200);
            return std::optional<Json>(Json::parse(res.body));
        },
        HasStatus(status),
        std::chrono::seconds(seconds)
    );
    if (!polled.reached) {
        FAIL("deployment " << id << " never reached " << status << "; last: " << polled.last.dump());
    }
    return polled.last;
}

std::string MarathonTemplate() {
    return ReadFile(SharedDir() + "/tosca-corpus/indigo-dc-orchestrator/src/test/resources/tosca/marathon_app.yaml");
}

std::string ErrorMessage(const http::ClientResponse& res, int status) {
    INFO(res.body);
    CHECK(res.status == status);
    const auto body = Json::parse(res.body);
    CHECK(body["code"] == status);
    CHECK(body["title"].is_string());
    CHECK_FALSE(body["title"].get<std::string>().empty());
    return body["message"].get<std::string>();
}

}  // namespace orch::test
