#pragma once

#include "common/clock.hpp"
#include "common/http_client.hpp"
#include "connectors/connector.hpp"
#include "monitoring/feed.hpp"
#include "orchestrator/domain/deployment.hpp"
#include "orchestrator/placement/placer.hpp"
#include "orchestrator/workflow/admission_cohorts.hpp"
#include "orchestrator/workflow/admission_observer.hpp"
#include "orchestrator/workflow/engine.hpp"
#include "orchestrator/workflow/fair_share.hpp"
#include "orchestrator/workflow/iam_clients.hpp"
#include "orchestrator/workflow/self_heal_options.hpp"
#include "orchestrator/workflow/site_version_cache.hpp"
#include "orchestrator/workflow/site_watcher.hpp"
#include "orchestrator/workflow/template_service.hpp"
#include "orchestrator/workflow/workflow_store.hpp"
#include "tosca/outputs.hpp"

#include <chrono>
#include <functional>
#include <optional>

namespace orch::workflow {

/// Credentials for a call to a site on behalf of a deployment's owner: the site's own secrets
/// from configuration and/or the user's current access token (refreshed as needed).
class CredentialSource {
   public:
    virtual ~CredentialSource() = default;
    virtual Result<connectors::Credentials> For(
        const connectors::SiteTarget& target, const std::optional<domain::Owner>& owner
    ) = 0;
    /// The owner's current access token for catalogues read on the user's behalf (SLAM, the
    /// Federation Registry); empty when there is none to give (no owner, auth disabled).
    virtual Result<std::string> OwnerAccessToken(const std::optional<domain::Owner>& owner) {
        (void)owner;
        return std::string();
    }
};

struct StepOptions {
    /// Polls start quick (0.1, 0.2, 0.4 s ...: a site ready within a second is seen within half
    /// a second of it)...
    std::chrono::milliseconds first_poll{100};
    std::chrono::milliseconds max_poll{30'000};  ///< ...and back off to this
    /// How long a site may say the application cannot start (tasks failing, CrashLoopBackOff,
    /// image pull errors) before the attempt fails with the site's message, instead of waiting
    /// for the provider timeout.
    std::chrono::milliseconds crash_loop_timeout{120'000};
    int max_transient_retries = 6;                           ///< retry-here failures before moving on
    std::chrono::milliseconds create_call_timeout{120'000};  ///< bound of a connector call
    std::chrono::milliseconds delete_wait{600'000};          ///< waiting for a site to finish deleting
    /// A site may make what a Create asked for long after the attempt was given up and cleaned
    /// (Nova lists a server only once its create call ends; found: a server made after polling
    /// stopped stayed until the deployment's delete). A failed attempt's site is therefore swept
    /// again (its connector's Delete, which finds the deployment's objects by name) this many
    /// times, every `late_sweep_interval`, unless a later attempt of the deployment lives on the
    /// same service (workflow.late_sweeps, 0 turns it off; workflow.late_sweep_interval).
    int late_sweeps = 3;
    std::chrono::milliseconds late_sweep_interval{300'000};
    std::chrono::milliseconds action_timeout{300'000};
    /// Callback deliveries (CallbackDeliverer): tries of one notification, each bounded by the
    /// timeout, spaced by a backoff doubling from 1 s up to callback_max_backoff; a delivery is
    /// abandoned after callback_retries tries or once older than callback_max_age.
    int callback_retries = 50;
    std::chrono::milliseconds callback_timeout{10'000};
    std::chrono::milliseconds callback_max_backoff{300'000};
    std::chrono::milliseconds callback_max_age{std::chrono::hours(24)};
    int default_provider_timeout_mins = 14'400;  ///< the original's 10 days
    /// How long a deployment whose quota reservation did not fit waits before placing again
    /// (workflow.admission_retry; docs/admission.md).
    std::chrono::milliseconds admission_retry{5'000};
    /// Whether a request that fits its quotas but not what is free now waits (queued) instead
    /// of failing (workflow.admission_queue), and for at most how long after its creation
    /// (workflow.admission_max_wait; 0: until the deployment's own timeout).
    bool admission_queue = true;
    std::chrono::milliseconds admission_max_wait{0};
    /// The fair-share order of the queue (docs/admission.md, "Fair share"): each group's weight
    /// (workflow.admission_weights; a group not listed has admission_default_weight) and the
    /// anti-starvation age (workflow.admission_starvation_age).
    FairShareWeights admission_weights;
    FairShareOptions admission_fair_share;
    /// How fast a group's past resource-hours are forgotten (workflow.admission_half_life).
    std::chrono::milliseconds admission_half_life{std::chrono::hours(24 * 7)};
    /// Groups that lend each other unused GPU quota (workflow.admission_cohorts): the place step
    /// runs the admission cycle (AdmissionCycle) with the cohort of the request's group.
    AdmissionCohorts admission_cohorts;
    /// Told the queue per group and each admission's wait (the queue metrics; main wires ops'
    /// AdmissionMetrics); null: nobody listens.
    AdmissionObserver* admission_observer = nullptr;
    SelfHealOptions self_heal;
};

struct StepServices {
    WorkflowStore& store;
    TemplateService& templates;
    placement::Placer& placer;
    connectors::ConnectorRegistry& connectors;
    CredentialSource& credentials;
    http::Client& http;                                     ///< callbacks (through the egress policy)
    const Clock& clock;                                     ///< deadlines, provider timeouts, action timeouts
    std::function<Json(const domain::Deployment&)> render;  ///< the Deployment JSON of callbacks
    /// Evaluates the outputs from the site's attributes (null and a note for those it cannot).
    std::function<tosca::OutputValues(const tosca::DeploymentSpec&, const std::map<std::string, Json>&)>
        resolve_outputs;
    StepOptions options;
    /// Where the versions of the sites deployed to come from (diagnostics); none: not asked.
    SiteVersionCache* site_versions = nullptr;
    /// The placement's monitoring feed, read by the health check when self_heal.site_down_after
    /// is set (a site marked down that long counts as lost); null: not read.
    monitoring::Feed* site_health = nullptr;
    /// Registers the OAuth clients of tosca.nodes.indigo.iam.client nodes before each attempt's
    /// deploy and deletes them with the deployment (iam_clients.enabled); null: such templates
    /// fail with a message saying so.
    IamClientRegistry* iam_clients = nullptr;
    /// Told the site of every deployment in progress, whose notifications make its next poll
    /// due at once (prompt completion); null: polls only.
    SiteWatcher* site_watcher = nullptr;
};

/// Registers every deployment step (deploy, poll, delete, delete_poll, cleanup, update,
/// update_poll, action, action_poll, health, and callback: a job of an older version, moved to the outbox
/// that CallbackDeliverer sends) on the engine. `services` must outlive it.
void RegisterDeploymentSteps(Engine& engine, StepServices& services);

}  // namespace orch::workflow
