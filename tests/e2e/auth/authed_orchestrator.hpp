#pragma once

#include "test_support/process.hpp"
#include "test_support/test_env.hpp"

#include <common/http_client.hpp>
#include <common/json.hpp>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace orch::test {

/// What an e2e auth test runs the orchestrator with: trusted issuers (config name, issuer URL),
/// extra `auth:` lines, and the placement catalogue and SLAs (empty ones: every create fails at
/// placement, which is all the visibility tests need).
struct AuthedSetup {
    std::vector<std::pair<std::string, std::string>> issuers;
    std::string auth_extra;    ///< lines inside `auth:`, each indented by two spaces
    std::string issuer_extra;  ///< lines inside every issuer, each indented by six spaces
    std::string catalogue_yaml = "providers: []\n";
    std::string sla_yaml = "{}\n";
    std::string default_group;
    std::map<std::string, std::string> env;  ///< extra environment (ORCHESTRATOR_<SECTION>__<KEY> overrides)
    std::string placement_yaml;              ///< lines inside `placement:` instead of the file catalogue and SLAs
};

/// The real orchestrator binary with `auth.mode: oidc` on a fresh database.
class AuthedOrchestrator {
   public:
    explicit AuthedOrchestrator(const AuthedSetup& setup);

    /// One API call with `Authorization: Bearer <token>` (no header when `token` is empty).
    http::ClientResponse Call(
        const std::string& method, const std::string& path, const std::string& token, const std::string& body = ""
    );
    /// Same, with the Authorization header exactly as given.
    http::ClientResponse CallWithHeader(
        const std::string& method,
        const std::string& path,
        const std::string& authorization,
        const std::string& body = ""
    );

    /// POST /deployments with `template_text` (userGroup "users" unless `body` names one); REQUIREs 201
    /// and returns the uuid.
    std::string Create(const std::string& token, const std::string& template_text, Json body = Json::object());
    /// Polls GET /deployments/{id} (with `token`) until `status`, or FAILs after `seconds`.
    Json WaitFor(const std::string& id, const std::string& status, const std::string& token, int seconds = 30);
    /// Same, asking `token()` before every poll (for tokens that expire while waiting).
    Json WaitFor(
        const std::string& id, const std::string& status, const std::function<std::string()>& token, int seconds
    );

    /// kill -9, then the same configuration on the same database again (on a new port).
    void KillAndRestart();

    std::string BaseUrl() const { return process_->BaseUrl(); }
    std::string dsn() const { return db_.dsn(); }
    std::string Log() { return process_->process().Log(); }

   private:
    void Start();

    TestDatabase db_;
    std::map<std::string, std::string> env_;
    std::string config_file_;
    std::unique_ptr<OrchestratorProcess> process_;
    std::unique_ptr<http::Client> client_;
};

/// The corpus' Marathon application (hello-world, 1 CPU, 1 GB).
std::string MarathonTemplate();

/// CHECKs the contract error body {code,title,message} and status; returns the message.
std::string ErrorMessage(const http::ClientResponse& res, int status);

}  // namespace orch::test
