#pragma once

#include "common/json.hpp"
#include "common/result.hpp"
#include "connectors/connector.hpp"
#include "orchestrator/placement/placement_options.hpp"
#include "orchestrator/placement/reason.hpp"
#include "orchestrator/placement/score_breakdown.hpp"
#include "orchestrator/placement/shared_text.hpp"
#include "tosca/deployment_spec.hpp"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace orch::placement {

/// Who asks: placement filters on the user's issuer (trusted IdPs), group (SLAs, quotas) and
/// subject (per-user quotas).
struct Requester {
    std::string issuer;
    std::string subject;
    std::string user_group;
    /// The user's access token, forwarded to SLAM and the Federation Registry only; never logged or stored.
    std::string access_token;
};

/// What the create request asked of placement and the workflow (the 2025 rewrite's target and
/// limits): shown in the explanation; the target is enforced here, the limits by the workflow.
struct DeploymentLimits {
    std::string target_provider;  ///< provider id or name; empty = any
    std::string target_region;    ///< region name; empty = any
    std::optional<int> max_providers_retry;
    std::optional<int> provider_timeout_mins;
    std::optional<int> timeout_mins;
    std::optional<int> per_provider_max_retries;  ///< tries on each provider; none = one
};

struct PlacementRequest {
    const tosca::DeploymentSpec* spec = nullptr;
    Requester requester;
    std::string deployment_id;  ///< excluded from quota usage (its own resources); empty for dry runs
    DeploymentLimits limits;
};

/// One ranked, deployable choice: where, and with which flavor/image per VM node.
struct Candidate {
    connectors::SiteTarget target;  ///< credentials are left empty: the workflow fills them per call
    std::map<std::string, connectors::NodePlacement> placements;
    std::string provider_name;       ///< cloudProviderName in the API
    Json endpoint = Json::object();  ///< cloudProviderEndpoint in the API (cpEndpoint, region, deploymentType, ...)
    double score = 0;
    /// Its service's SLA quota (empty when quotas are off or the SLA sets none): what admission
    /// reserves against on this service (workflow/admission.hpp).
    GroupQuota sla_quota;
    /// By VM node asking for GPUs: the GPUs of the flavor chosen for it, when the flavor names a
    /// model (its vendor, model and memory; the count is the node's). Admission claims the class
    /// of these, not of the request's model (a request for "any NVIDIA" landing on an A100 is
    /// an A100). Not stored with the candidate: it is read where the decision is made.
    std::map<std::string, tosca::GpuRequest> chosen_gpus;
};

/// The verdict on one candidate service, with every reason and the score breakdown. It owns its
/// texts (shares them with the catalogue it was made from), so it may outlive its decision.
struct SiteVerdict {
    SharedText provider_id, provider_name, service_id, service_type;
    bool accepted = false;
    Reasons reasons;                 ///< why rejected (all of them), or notes when accepted
    ScoreBreakdown score_breakdown;  ///< rendered by ToJson (ScoreBreakdown::ToJson)
    double score = 0;
    int rank = 0;  ///< 1-based among accepted; 0 when rejected
};

/// A GPU site's size and what is free on it now, for the admission cycle (workflow): the
/// catalogue's num_gpus and the live feed's free GPUs.
struct SiteGpuCount {
    std::string service_id;
    int total = 0;
    int free = 0;
};

/// A placement and its explanation; stored with the deployment and served as JSON.
struct PlacementDecision {
    std::vector<Candidate> ranked;      ///< best first; empty when nothing fits
    std::vector<SiteVerdict> verdicts;  ///< every service considered
    std::vector<std::string> notes;     ///< e.g. "monitoring feed unavailable: ..."
    std::string mode;                   ///< "gpu-aware" or "indigo"
    std::string evaluated_at;           ///< RFC 3339 UTC time of the placement
    /// The configured quota of the group (all services; empty when quotas are off) and the group
    /// it was chosen for (the requester's, else the default group): what admission reserves against.
    GroupQuota configured_quota;
    std::string quota_group;
    /// Nothing fits now, but some service was refused only because a quota is full or its live
    /// capacity is taken: the request may wait (docs/admission.md) instead of failing.
    bool waitable = false;
    /// The sites that passed the static and quota filters whose GPUs are known (declared
    /// num_gpus and live free GPUs); not part of the explanation record.
    std::vector<SiteGpuCount> gpu_sites;

    /// The explanation record (documented in docs/placement.md): stable keys, credentials never included.
    Json ToJson() const;
    /// ToJson() as text, written without building the tree (for 10,000 sites the tree costs
    /// ~10 times as much). Parses to a value equal to ToJson().
    std::string ToJsonText() const;
    /// Reads back what ToJson wrote (e.g. a stored decision, to resume trying candidates).
    static Result<PlacementDecision> FromJson(const Json& json);
    /// "No cloud provider meets the deployment requirements" plus one line per site saying why.
    std::string NoCandidateMessage() const;
};

/// Chooses and ranks sites for a deployment. Failures of feeds are recorded in `notes`, not
/// returned as errors; an error means placement itself could not run (e.g. no catalogue at all).
class Placer {
   public:
    virtual ~Placer() = default;
    virtual Result<PlacementDecision> Place(const PlacementRequest& request) = 0;
    /// The endpoints shown by GET /configuration (cmdb_url, slam_url, monitoring_url, ...).
    virtual std::map<std::string, std::string> ConfigurationEndpoints() const = 0;
};

}  // namespace orch::placement
