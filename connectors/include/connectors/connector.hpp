#pragma once

#include "common/json.hpp"
#include "common/result.hpp"
#include "tosca/deployment_spec.hpp"
#include "tosca/node_state.hpp"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace orch::connectors {

/// Which API a site service speaks.
enum class TargetKind { kOpenStack, kMarathon, kChronos, kKubernetes, kSlurm };
std::string_view TargetKindName(TargetKind kind);  ///< "OPENSTACK", "MARATHON", ... (IaaSType names)

/// How a failed call should be handled by the workflow.
enum class FailureKind {
    kRetryHere,       ///< transient (timeout, 5xx, connection reset): retry the same step later
    kTryAnotherSite,  ///< this site cannot do it (no capacity, no valid host, site broken)
    kUserError,       ///< the request itself is wrong; another site would refuse it too
};

/// A connector failure: the error plus what to do about it.
struct Failure {
    FailureKind kind = FailureKind::kRetryHere;
    std::string message;  ///< words a user can read in statusReason
};

template <typename T>
using ConnectorResult = std::variant<T, Failure>;

/// Credentials for one call, resolved per site and per user by the orchestrator just before the
/// call (tokens are refreshed there; connectors never store them).
struct Credentials {
    std::string bearer_token;        ///< user's IAM access token or a site service token
    std::string username, password;  ///< Keystone password auth / Marathon basic auth
    std::string application_credential_id, application_credential_secret;
    std::string client_cert_file, client_key_file;  ///< Kubernetes client certificate
    std::string ca_file;                            ///< the site's CA (PEM), when not publicly trusted
};

/// Where to deploy: one service of one site, as chosen by placement.
struct SiteTarget {
    std::string site_id;     ///< CMDB provider id
    std::string service_id;  ///< CMDB service id
    TargetKind kind = TargetKind::kOpenStack;
    std::string endpoint;  ///< base URL of the service API
    std::string region;
    std::string project;  ///< OpenStack project id/name, Kubernetes namespace prefix, Slurm account
    /// Site-specific switches from the catalogue, e.g. {"gpu_attribute": "gpu_model"} (Marathon),
    /// {"gpu_support": true} (Chronos), {"identity_provider": "...", "protocol": "openid"} (Keystone
    /// federation), {"network": "private-net"}, {"keypair": "..."}, {"partition": "gpu"} (Slurm).
    Json options = Json::object();
    Credentials credentials;
};

/// What placement chose per VM node on an IaaS site (flavor and image matched to the request).
struct NodePlacement {
    std::string flavor_id, flavor_name;
    std::string image_id, image_name;
};

struct DeployRequest {
    std::string deployment_id;  ///< provider-side names derive from it (idempotent re-runs)
    const tosca::DeploymentSpec* spec = nullptr;
    SiteTarget target;
    std::map<std::string, NodePlacement> placements;  ///< by node name (VM targets)
    /// Native contextualisation (VM targets): when set, every server gets, through cloud-init,
    /// the account `ssh_user` (passwordless sudo) accepting this OpenSSH public key, so the
    /// orchestrator's Ansible can log in once the server is ACTIVE.
    std::string ssh_public_key;
    std::string ssh_user = "cloudadm";
    /// The deployment's owner, for what the original tells the site about them (IM: the
    /// PAAS_DEP_USER / PAAS_DEP_USER_EMAIL VM tags, the owner's issuer's CLUES client). Empty
    /// when unknown; never logged.
    std::string owner_issuer, owner_name, owner_email;
    /// The template as the user sent it (inputs unresolved). Connectors that hand the site a
    /// TOSCA document (IM) rewrite it; the others build from `spec` and ignore it.
    std::string template_text;
};

/// What a site says one node instance is doing: the node states a provider can report, with the
/// values of tosca::NodeState (the one list of node states; NodeStateOf converts), or kUnknown.
/// Each connector maps its provider's words here in one function; a word it does not know becomes
/// kUnknown (the workflow then leaves the resource's recorded state as it was) rather than a
/// guess such as STARTED.
enum class InstanceStatus {
    kUnknown = -1,
    kCreating = static_cast<int>(tosca::NodeState::kCreating),
    kConfiguring = static_cast<int>(tosca::NodeState::kConfiguring),
    kStarting = static_cast<int>(tosca::NodeState::kStarting),
    kStarted = static_cast<int>(tosca::NodeState::kStarted),
    kStopping = static_cast<int>(tosca::NodeState::kStopping),
    kStopped = static_cast<int>(tosca::NodeState::kStopped),
    kDeleting = static_cast<int>(tosca::NodeState::kDeleting),
    kDeleted = static_cast<int>(tosca::NodeState::kDeleted),
    kError = static_cast<int>(tosca::NodeState::kError),
};
/// The node state reported; nullopt for kUnknown.
std::optional<tosca::NodeState> NodeStateOf(InstanceStatus status);
/// The NodeStates word (CREATING, STARTED, ...; UNKNOWN for kUnknown).
std::string_view InstanceStatusName(InstanceStatus status);

/// Provider-side state of one node instance.
struct InstanceState {
    std::string node;         ///< TOSCA node name
    int index = 0;            ///< instance number within the node
    std::string physical_id;  ///< server id, task id, pod name, job id
    InstanceStatus state = InstanceStatus::kUnknown;
    Json attributes = Json::object();  ///< public_address, private_address, endpoint, ports...
};

enum class Phase { kInProgress, kReady, kFailed, kGone };

struct Observation {
    Phase phase = Phase::kInProgress;
    std::string reason;                                  ///< why it failed / what it waits for
    FailureKind failure = FailureKind::kTryAnotherSite;  ///< meaningful when phase == kFailed
    std::vector<InstanceState> instances;
    /// Node-level attributes for get_attribute (node name → attribute → value).
    std::map<std::string, Json> attributes;
    std::string log;  ///< text for GET /deployments/{id}/log when the target has one
    /// Output values the site computed itself (IM evaluates the TOSCA outputs); an object, or null
    /// when outputs are to be resolved from `attributes`. Site values win over resolved ones.
    Json outputs = nullptr;
    /// The site's own latest message about the workload (a Marathon task failure, a pod's waiting
    /// reason), when it has one: what the site says now, for status reasons and events.
    std::optional<std::string> site_message;
    /// The site says the application cannot start and keeps retrying (Marathon tasks of the
    /// current version failing, CrashLoopBackOff, ImagePullBackOff, ErrImagePull); site_message
    /// says why. The workflow fails the attempt once this lasts workflow.crash_loop_timeout.
    bool cannot_start = false;
};

/// What SiteVersion answers when the site's version cannot be asked or read.
inline constexpr std::string_view kUnknownSiteVersion = "unknown";

/// Handle of what a connector created: enough to find it again after a restart.
struct Handle {
    std::string deployment_id;
    std::string physical_id;  ///< group id, namespace, stack of server ids, job id (connector-defined)
    SiteTarget target;
    Json state = Json::object();  ///< connector-private bookkeeping persisted by the workflow
};

/// What a Delete call achieved. The workflow ends the delete at once on kComplete and polls
/// until Poll reports kGone on kInProgress, so a connector must never answer kComplete while
/// something of the deployment is still on its way out.
enum class Deletion {
    kComplete,    ///< nothing of the deployment is left (or was ever there): no polling needed
    kInProgress,  ///< removal accepted; Poll reports kGone once the site has finished it
};

/// What RollBack put back: the handle to keep from now on and, per node, the instance count the
/// site runs again.
struct Restored {
    Handle handle;
    std::map<std::string, int> counts;
};

/// One interface for every target. Every call is bounded by the connector's timeout; calls are
/// idempotent by deployment id (a create re-run after a crash finds what it already created).
class Connector {
   public:
    virtual ~Connector() = default;
    virtual TargetKind kind() const = 0;

    virtual ConnectorResult<Handle> Create(const DeployRequest& request) = 0;
    virtual ConnectorResult<Observation> Poll(const Handle& handle, const tosca::DeploymentSpec& spec) = 0;
    /// Brings the deployment to `spec` (scale count, removal_list of instance physical ids).
    virtual ConnectorResult<Handle> Update(const Handle& handle, const DeployRequest& request) = 0;
    /// Removes everything of the deployment (idempotent: deleting what is gone is kComplete).
    /// Asynchronous sites (Marathon, Chronos, Kubernetes, servers Nova still deletes) answer
    /// kInProgress; synchronous outcomes and "already gone" answer kComplete. `force` tolerates
    /// failures other than transient ones.
    virtual ConnectorResult<Deletion> Delete(const Handle& handle, bool force) = 0;
    /// Puts back what the Update that returned `handle` changed, when that connector recorded how
    /// (Kubernetes: each scaled-up Deployment's previous replica count). The workflow calls it
    /// when the update failed on the site. Default, and when nothing was recorded: kUserError
    /// (nothing rolled back; the workflow reports what the update left).
    virtual ConnectorResult<Restored> RollBack(const Handle& handle) {
        (void)handle;
        return Failure{FailureKind::kUserError, "this target does not roll an update back"};
    }
    /// The site's software as it names itself ("Marathon 1.7.236", "Kubernetes v1.29.2"), for
    /// diagnostics; kUnknownSiteVersion where the connector cannot ask. One bounded call; callers
    /// cache the answer (workflow::SiteVersionCache) rather than ask on every step.
    virtual ConnectorResult<std::string> SiteVersion(const SiteTarget& target) {
        (void)target;
        return std::string(kUnknownSiteVersion);
    }
    /// Start/stop one instance where the target can (VMs); others answer kUserError.
    virtual ConnectorResult<bool> Act(
        const Handle& handle, const std::string& physical_id, const std::string& action
    ) = 0;
};

/// Finds the connector for a target kind; owned by main, passed by reference.
class ConnectorRegistry {
   public:
    virtual ~ConnectorRegistry() = default;
    virtual Connector* Find(TargetKind kind) = 0;
};

}  // namespace orch::connectors
