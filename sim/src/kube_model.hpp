#pragma once

#include "common/json.hpp"
#include "sim/json_schema.hpp"
#include "sim/kubernetes_sim.hpp"
#include "sim/sim_config.hpp"
#include "sim/sim_http.hpp"

#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace orch::sim {

inline constexpr double kKubeNever = std::numeric_limits<double>::infinity();

/// One REST resource of the simulated API server.
struct KubeResource {
    std::string group;    ///< "" for the core group
    std::string version;  ///< "v1", "v1beta1"
    std::string plural;   ///< "deployments"
    std::string kind;     ///< "Deployment"
    std::string schema;   ///< schema file name; empty = read-only resource
    bool namespaced = true;

    std::string ApiVersion() const { return group.empty() ? version : group + "/" + version; }
    /// "deployments.apps" / "namespaces", as the API server names resources in messages.
    std::string QualifiedName() const { return group.empty() ? plural : plural + "." + group; }
};

const KubeResource* FindKubeResource(const std::string& group, const std::string& version, const std::string& plural);
const KubeResource* FindKubeResourceByKind(const std::string& kind);

struct KubeObject {
    const KubeResource* resource = nullptr;
    std::string ns;
    std::string name;
    Json body;                 ///< metadata, spec and the status the controllers maintain
    double deleted_at = -1;    ///< foreground deletion or namespace termination in progress
    double last_progress = 0;  ///< Deployments: last time the rollout made progress
    double cron_checked = 0;   ///< CronJobs: schedule evaluated up to this time

    std::string Uid() const { return body["metadata"].value("uid", ""); }
    bool Deleting() const { return deleted_at >= 0; }
};

struct PodDemand {
    double cpu = 0;  ///< cores
    double memory_mb = 0;
    int gpus = 0;
};

struct KubePod {
    std::string ns;
    std::string name;
    std::string uid;
    std::string owner_kind;  ///< "Deployment" or "Job" (the owning controller)
    std::string owner_name;
    std::string owner_uid;
    std::string template_hash;  ///< Deployments: which revision the pod belongs to
    Json labels = Json::object();
    Json spec;
    PodDemand demand;
    std::string node;
    std::string unschedulable;  ///< scheduler message while Pending
    std::string phase = "Pending";
    double created = 0;
    double start_at = kKubeNever;
    double finish_at = kKubeNever;
    double gone_at = -1;  ///< terminating until then
    int exit_code = 0;
    int restarts = 0;
    bool ready = false;
    std::string waiting_reason;  ///< ErrImagePull, CrashLoopBackOff, ...
    std::string waiting_message;
    std::string pod_ip;
    bool orphaned = false;

    bool Terminating() const { return gone_at >= 0; }
    bool Finished() const { return phase == "Succeeded" || phase == "Failed"; }
    bool HoldsResources() const { return !node.empty() && !Finished(); }
    std::string Env(const std::string& key) const;
};

struct KubernetesSim::State {
    const SimConfig& config;
    const SchemaSet& schemas;
    std::vector<KubeNodeSpec> nodes;
    std::map<std::string, KubeObject> objects;  ///< key: Kind/namespace/name
    std::map<std::string, KubePod> pods;        ///< key: namespace/name
    std::vector<Json> events;
    long resource_version = 1000;
    int next_node_port = 30000;
    int next_cluster_ip = 10;
    int next_pod_ip = 2;
    std::mt19937 rng{std::random_device{}()};

    State(const SimConfig& c, const SchemaSet& s) : config(c), schemas(s), nodes(c.kube_nodes) {}

    static std::string Key(const std::string& kind, const std::string& ns, const std::string& name) {
        return kind + "/" + ns + "/" + name;
    }
    KubeObject* Find(const std::string& kind, const std::string& ns, const std::string& name);
    std::string NextResourceVersion() { return std::to_string(++resource_version); }
    std::string NewUid();
    std::string RandomSuffix(std::size_t length);
    void Touch(KubeObject& object);
    void RecordEvent(const KubePod& pod, const std::string& reason, const std::string& message, double now);

    // Controllers (kube_controllers.cpp)
    void RunNamespaces(double now);
    void RunDeployment(KubeObject& deployment, double now);
    void RollOut(
        KubeObject& deployment,
        const std::string& hash,
        int desired,
        std::vector<KubePod*>& current,
        std::vector<KubePod*>& old,
        double now
    );
    void RunJob(KubeObject& job, double now);
    void RunCronJob(KubeObject& cronjob, double now);
    // Flux (kube_flux.cpp)
    void RunHelmRelease(KubeObject& release, double now);
    void RunHelmRepository(KubeObject& repository, double now);
    bool SourceReady(const KubeObject& release) const;
    void InstallChart(const KubeObject& release, double now);
    void RunPods(double now, const std::set<std::string>& exhausted);
    void CreatePod(const KubeObject& owner, const Json& pod_template, const std::string& hash, double now);
    void TerminatePod(KubePod& pod, double now);
    /// Deletes what `owner` owns: pods, or Jobs for a CronJob. `orphan` keeps them running.
    void DeleteDependents(const KubeObject& owner, bool orphan, double now);
    bool HasDependents(const KubeObject& owner) const;
    void RemoveObject(const std::string& key);
    Json PodJson(const KubePod& pod, double now) const;

    // Scheduler (kube_scheduler.cpp)
    void Schedule(KubePod& pod, const std::set<std::string>& exhausted, double now);
};

/// A meta/v1 Status failure body.
SimResponse KubeStatus(int code, const std::string& reason, const std::string& message, Json details = nullptr);

/// Schema and server-side validation of one object; an error response when invalid.
std::optional<SimResponse> ValidateKubeObject(
    const KubernetesSim::State& state, const KubeResource& resource, const Json& object
);

/// What the Flux CRDs' validation rules (beyond their schemas) find wrong: (field, detail) pairs.
std::vector<std::pair<std::string, std::string>> FluxProblems(const KubeResource& resource, const Json& spec);

/// Job defaults, including the generated controller-uid selector when `uid` is set.
void ApplyKubeJobDefaults(Json& spec, const std::string& uid, const std::string& job_name);
/// Pod template defaults (restart policy, image pull policy, port protocols).
void ApplyKubePodDefaults(Json& pod_spec, const std::string& restart);
/// Fills the defaults of a new or replaced object of `resource` (allocating cluster IPs).
void ApplyKubeDefaults(KubernetesSim::State& state, const KubeResource& resource, Json& object);
/// RFC 3339 time with second precision, as the API server writes it.
std::string KubeTime(double seconds);

/// The summed requests of a pod spec (limits count when requests are absent).
PodDemand PodDemandOf(const Json& pod_spec);
/// Parses a Kubernetes quantity ("500m", "2", "1Gi", 1.5) into base units (cores or bytes).
std::optional<double> ParseQuantity(const Json& quantity);

/// Whether a label selector ("a=b,c!=d,e,!f") matches `labels`; nullopt when unparsable.
std::optional<bool> SelectorMatches(const std::string& selector, const Json& labels);
/// matchLabels/matchExpressions selector object.
bool LabelSelectorMatches(const Json& selector, const Json& labels);

/// "spec.template.spec.containers[0].gpus" from "/spec/template/spec/containers/0/gpus".
std::string KubeFieldPath(const std::string& pointer);

}  // namespace orch::sim
