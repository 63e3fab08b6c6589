#pragma once

// In-process fakes of the orchestrator's collaborator interfaces, for workflow and API tests
// that must not depend on the TOSCA engine, placement or real sites. They record what was
// asked so tests can assert "created once" and "nothing leaked".
#include "connectors/connector.hpp"
#include "orchestrator/auth/authenticator.hpp"
#include "orchestrator/placement/placer.hpp"
#include "orchestrator/workflow/deployment_steps.hpp"
#include "orchestrator/workflow/template_service.hpp"

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace orch::test {

/// Authenticates every request as `principal` (API tests that are about authorization, not tokens).
class FakeAuthenticator final : public auth::Authenticator {
   public:
    auth::Principal principal;
    Result<auth::Principal> Authenticate(std::string_view) override { return principal; }
};

/// Returns a copy of `spec` for any template; "INVALID" in the text is a 400-style error.
class FakeTemplateService final : public workflow::TemplateService {
   public:
    explicit FakeTemplateService(tosca::DeploymentSpec spec) : spec_(std::move(spec)) {}
    Result<tosca::DeploymentSpec> Build(const std::string& text, const Json& parameters, const Json& accepted) override;
    Status Check(const std::string& text) override;

   private:
    tosca::DeploymentSpec spec_;
};

/// A spec with one Marathon-style app node `app` (count from parameters["count"], default 1;
/// removal_list from parameters["removal_list"]; the GPU model from parameters["gpu_model"]).
tosca::DeploymentSpec SimpleSpec();

/// Ranks the configured sites in order; every site accepts.
class FakePlacer final : public placement::Placer {
   public:
    explicit FakePlacer(std::vector<std::string> sites) : sites_(std::move(sites)) {}
    Result<placement::PlacementDecision> Place(const placement::PlacementRequest& request) override;
    std::map<std::string, std::string> ConfigurationEndpoints() const override { return {{"cmdb_url", "fake://cmdb"}}; }
    /// Every decision carries this as the group's configured quota (what admission reserves against).
    void SetQuota(const placement::GroupQuota& quota);
    /// While set, no site is offered and the decision says the request may wait (a full quota).
    void SetFull(bool full);
    /// The site's candidate carries this as its service's SLA quota.
    void SetSlaQuota(const std::string& site, const placement::GroupQuota& quota);
    /// The site's GPUs as monitoring would report them: the decision lists them (gpu_sites) and
    /// the site is offered only to requests that fit in its free GPUs.
    void SetGpus(const std::string& site, int total, int free);

   private:
    std::vector<std::string> sites_;
    std::map<std::string, std::pair<int, int>> gpus_;  ///< site → (total, free)
    std::mutex mutex_;
    placement::GroupQuota quota_;
    std::map<std::string, placement::GroupQuota> sla_quotas_;
    bool full_ = false;
};

/// How one fake site behaves.
struct FakeSiteBehaviour {
    std::optional<connectors::FailureKind> create_fails;
    int polls_until_ready = 1;
    std::string waiting_message;  ///< Observation::reason while in progress (the site's own words)
    /// While not ready, Poll lists the one instance with this status (none when unset).
    std::optional<connectors::InstanceStatus> in_progress_status;
    /// While in progress, the site says the application cannot start, with this message.
    std::optional<std::string> cannot_start;
    std::optional<connectors::FailureKind> poll_fails;  ///< the site reports failure when polled
    std::chrono::milliseconds create_delay{0};
    /// The first N Delete calls remove nothing, as when a Create still in flight re-makes the
    /// objects right after the delete.
    int deletes_without_effect = 0;
    /// Delete removes everything at once (Deletion::kComplete) while Poll keeps reporting the
    /// finished deployment as ready, as Slurm lists completed jobs long after they ended.
    bool ended_work_stays_listed = false;
    /// The site does not answer (killed, network cut): Poll and Delete fail with kRetryHere and
    /// change nothing; what lives there stays.
    bool unreachable = false;
    /// The site's whole log (Observation::log) at the first, second, ... poll; the last one
    /// again after that. Sites send all of it every time, as IM's contmsg does.
    std::vector<std::string> site_logs;
};

/// A Marathon-kind connector whose sites are plain in-memory maps.
class FakeConnector final : public connectors::Connector {
   public:
    connectors::TargetKind kind() const override { return connectors::TargetKind::kMarathon; }
    connectors::ConnectorResult<connectors::Handle> Create(const connectors::DeployRequest& request) override;
    connectors::ConnectorResult<connectors::Observation> Poll(
        const connectors::Handle& handle, const tosca::DeploymentSpec& spec
    ) override;
    connectors::ConnectorResult<connectors::Handle> Update(
        const connectors::Handle& handle, const connectors::DeployRequest& request
    ) override;
    connectors::ConnectorResult<connectors::Deletion> Delete(const connectors::Handle& handle, bool force) override;
    connectors::ConnectorResult<bool> Act(
        const connectors::Handle& handle, const std::string& physical_id, const std::string& action
    ) override;

    /// "fake-marathon 1.0 (SITE)"; counted per site.
    connectors::ConnectorResult<std::string> SiteVersion(const connectors::SiteTarget& target) override;
    int VersionCalls(const std::string& site) const;

    void SetBehaviour(const std::string& site, FakeSiteBehaviour behaviour);
    /// Everything on `site` vanishes without a Delete (a wiped site, a workload lost).
    void Forget(const std::string& site);
    /// The deployment's objects appear on `site` without a Create: the site finished a create
    /// after the attempt was given up (a late Nova server).
    void MakeLate(const std::string& site, const std::string& deployment_id);
    /// Objects alive per site ("site/deployment").
    std::set<std::string> Live() const;
    /// How many Create calls reached each deployment on each site.
    int CreateCalls(const std::string& site, const std::string& deployment_id) const;
    int TotalCreates() const;
    /// The placements the last Update of `deployment_id` was given (empty when none).
    std::map<std::string, connectors::NodePlacement> UpdatePlacements(const std::string& deployment_id) const;
    /// The removal_list of node `app` the last Update of `deployment_id` was given.
    std::vector<std::string> UpdateRemovals(const std::string& deployment_id) const;

   private:
    mutable std::mutex mutex_;
    std::map<std::string, FakeSiteBehaviour> behaviour_;
    std::map<std::string, int> polls_;  // key site/deployment
    std::map<std::string, int> create_calls_;
    std::map<std::string, int> version_calls_;
    std::set<std::string> live_;
    std::set<std::string> listed_after_delete_;  // key site/deployment
    std::map<std::string, std::map<std::string, connectors::NodePlacement>> update_placements_;
    std::map<std::string, std::vector<std::string>> update_removals_;
};

class FakeRegistry final : public connectors::ConnectorRegistry {
   public:
    explicit FakeRegistry(connectors::Connector& connector) : connector_(connector) {}
    connectors::Connector* Find(connectors::TargetKind kind) override {
        return kind == connector_.kind() ? &connector_ : nullptr;
    }

   private:
    connectors::Connector& connector_;
};

class FakeCredentials final : public workflow::CredentialSource {
   public:
    Result<connectors::Credentials> For(const connectors::SiteTarget&, const std::optional<domain::Owner>&) override {
        return connectors::Credentials{};
    }
};

}  // namespace orch::test
