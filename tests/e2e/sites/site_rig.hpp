#pragma once
// The pieces of an end-to-end site test: site-sim processes, a catalogue and SLA file naming
// them, the orchestrator binary on that catalogue, and a small REST client for its API.
// Shared by the sites tests and the chaos test (tests/e2e/chaos includes this file).
#include <common/http_client.hpp>
#include <common/json.hpp>

#include <sys/types.h>
#include <test_support/site_sim_process.hpp>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace orch::e2e {

/// One site-sim process (Marathon, Chronos and Kubernetes simulators on free loopback ports),
/// stopped by PID when the object dies.
class SimProcess {
   public:
    /// `config_yaml` may be empty (the simulator's defaults); `extra` are more site-sim arguments
    /// (--marathon-port N, --state-file FILE: a site started again where a killed one was).
    explicit SimProcess(const std::string& config_yaml = "", std::vector<std::string> extra = {});
    ~SimProcess() = default;
    SimProcess(const SimProcess&) = delete;
    SimProcess& operator=(const SimProcess&) = delete;

    std::string Url(const std::string& api) const;
    int Port(const std::string& api) const { return process_.Port(api); }
    /// kill -9 of the simulator process (its ports stop answering at once).
    void Kill() { process_.Kill(); }
    /// GET /__sim/objects: the simulator's own listing of everything it holds.
    Json Objects() const;
    /// The Kubernetes Deployment object of orchestrator deployment `deployment_id`, as the
    /// simulator's Kubernetes API returns it; throws when there is none.
    Json KubernetesDeployment(const std::string& deployment_id) const;
    void AddFault(const Json& rule) const;
    void ClearFaults() const;
    Json Faults() const;
    /// The requests the simulators refused as invalid (must stay empty: our payloads are valid).
    Json Rejections() const;
    /// GET /__sim/traces: the last traceparent headers the simulators received.
    Json Traces() const;

   private:
    Json Admin(const std::string& method, const std::string& path, const Json& body = nullptr) const;

    orch::sim::test::SiteSimProcess process_;  ///< started, and stopped by PID, by test_support
    std::unique_ptr<http::Client> client_;
};

/// A site of the catalogue: its services point at one simulator process.
struct SiteSpec {
    std::string id;  ///< provider id, e.g. SITE-A; services are <id>_marathon, ...
    const SimProcess* sim = nullptr;
    std::string gpu_model;  ///< catalogue gpu_model of every service of the site
    int num_gpus = 8;
    double weight = 1.0;  ///< SLA priority weight: the higher, the earlier in the ranking
    bool marathon = true;
    bool chronos = false;
    bool kubernetes = false;
    std::string flux_version;  ///< the Kubernetes service's catalogue `flux_version` ("" = not written)
};

/// One SLA of group "e2e": a provider's service and its priority weight (the higher, the earlier
/// in the ranking).
struct SlaEntry {
    std::string provider_id;
    std::string service_id;
    double weight = 1.0;
};

/// The local SLAM file (group "e2e") granting `entries`.
std::string SlaYaml(const std::vector<SlaEntry>& entries);

/// Writes the given catalogue and SLA files and an orchestrator.yaml using them (auth off, corpus
/// mirror, quick polls) into a fresh folder under the build directory; returns the path of
/// orchestrator.yaml. `top_level_yaml` is added as written (e.g. a `credentials:` section),
/// `workflow_yaml` under `workflow:` (indented by the caller). The quick polls (first_poll 200ms,
/// max_poll 1s, idle_poll 100ms) and `log: {level: warn}` apply unless the caller sets them.
std::string WriteOrchestratorFiles(
    const std::string& catalogue_yaml,
    const std::string& sla_yaml,
    const std::string& workflow_yaml = "",
    const std::string& top_level_yaml = ""
);

/// Writes catalogue.yaml, sla.yaml and orchestrator.yaml into a fresh folder under the build
/// directory and returns the path of orchestrator.yaml. `workflow_yaml` is appended verbatim
/// under `workflow:` (indented by the caller).
std::string WriteOrchestratorConfig(
    const std::vector<SiteSpec>& sites, const std::string& workflow_yaml = "", const std::string& top_level_yaml = ""
);

/// A REST client for one orchestrator's API.
class Api {
   public:
    explicit Api(std::string base_url);
    void set_base_url(std::string base_url) { base_ = std::move(base_url); }

    /// Transport failures come back as status 0 (the chaos test calls a process it may kill).
    http::ClientResponse Call(const std::string& method, const std::string& path, const std::string& body = "");
    /// POST /deployments; returns the uuid, or "" when the answer was not 201.
    std::string Create(const std::string& template_text, const Json& parameters);
    /// GET /deployments/{id}?includeDeleted=true: the admin's view, deleted deployments included.
    std::optional<Json> Get(const std::string& id);
    /// Polls GET /deployments/{id} until its status is one of `statuses` or `timeout` passes;
    /// returns the last body seen (check its status).
    Json WaitFor(const std::string& id, const std::set<std::string>& statuses, std::chrono::seconds timeout);

   private:
    std::string base_;
    std::unique_ptr<http::Client> client_;
};

/// Rows of the attempts table for one deployment (seq, provider_id, service_id, outcome,
/// reason), in order: the durable record of every site tried.
Json AttemptsOf(const std::string& dsn, const std::string& deployment_id);

/// A corpus file by path under ../shared/tosca-corpus/.
std::string CorpusTemplate(const std::string& relative_path);

inline constexpr const char* kWebdav = "indigo-dc-tosca-templates/deep-oc/deep-oc-marathon-webdav.yml";
inline constexpr const char* kGenericDev = "indigo-dc-tosca-templates/deep-oc/deep-oc-generic-dev.yml";
inline constexpr const char* kKeplerBatch = "indigo-dc-tosca-templates/kepler-batch.yaml";
inline constexpr const char* kKubernetesApp = "indigo-dc-orchestrator/src/test/resources/tosca/kubernetes_app.yaml";

/// Inserts `line` after the first line containing `anchor`, with that line's indentation
/// (throws when the anchor is missing: the corpus file changed).
std::string InsertAfter(std::string text, const std::string& anchor, const std::string& line);

/// A DEEP Marathon template (webdav, generic-dev) asking for a GPU model on its Docker host.
std::string WithGpuModel(std::string text, const std::string& model);

/// kepler-batch (a Chronos job) asking for one GPU, of `model` unless empty.
std::string KeplerWithGpu(const std::string& model);

/// kubernetes_app.yaml with one GPU of `model`; see the definition for the changes it needs.
std::string KubernetesWithGpu(const std::string& model);

/// Every provider-side object the simulator holds that carries a deployment id, as
/// "<kind>:<name>" strings (Marathon groups and apps, Chronos jobs, Kubernetes namespaces and
/// namespaced objects). Names embed the deployment id, so this is what a leak check needs.
std::vector<std::string> ProviderObjects(const Json& objects);

/// True when `objects` (from ProviderObjects) names `deployment_id` anywhere.
bool Mentions(const std::vector<std::string>& objects, const std::string& deployment_id);

}  // namespace orch::e2e
