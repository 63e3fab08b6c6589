#pragma once

#include "common/json.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orch::tosca {

/// What kind of target a template needs; decided from the node types (through derivation,
/// unlike the original, which compared exact type names).
enum class DeploymentKind {
    kVirtualMachines,  ///< tosca.nodes.(indigo.)Compute and everything IM-style → OpenStack
    kMarathon,         ///< tosca.nodes.indigo.Container.Application.Docker.Marathon
    kChronos,          ///< tosca.nodes.indigo.Container.Application.Docker.Chronos
    kKubernetes,       ///< Kubernetes application / job types
    kSlurm,            ///< tosca.nodes.indigo.Qcg.Job / Batch.Job → an HPC (Slurm) site
};

/// "VIRTUAL_MACHINES", "MARATHON", "CHRONOS", "KUBERNETES", "SLURM".
std::string_view DeploymentKindName(DeploymentKind kind);
/// The kind DeploymentKindName names `name`; nullopt for any other text.
std::optional<DeploymentKind> ParseDeploymentKind(std::string_view name);

/// The original orchestrator's DeploymentType name for a kind, as the API shows it in
/// cloudProviderEndpoint.deploymentType: "TOSCA" (VMs through IM), "MARATHON", "CHRONOS",
/// "KUBERNETES_HELM_CHART", "QCG".
std::string_view OriginalDeploymentTypeName(DeploymentKind kind);

/// GPUs asked for by one node. count 0 means no GPU. Empty strings mean "any".
struct GpuRequest {
    int count = 0;
    std::string vendor;  ///< e.g. "NVIDIA" (as written; compared case-insensitively)
    std::string model;   ///< e.g. "V100", "T4"
    std::optional<std::uint64_t> memory_mb;
};

/// Resources one instance of a node needs (after unit normalisation). Absent = not constrained.
struct ResourceRequest {
    std::optional<double> cpus;
    std::optional<std::uint64_t> mem_mb;
    std::optional<std::uint64_t> disk_mb;
    GpuRequest gpu;
    // Operating system / image wishes (tosca.capabilities.indigo.OperatingSystem on VMs).
    std::string os_type, os_distribution, os_version, image;
    std::string gpu_driver, cuda_min_version;
    bool cuda_support = false;
    std::string instance_type;  ///< a flavor named explicitly
};

struct PortSpec {
    int target = 0;                ///< container/VM port ("source" in INDIGO PortSpec on containers)
    std::optional<int> published;  ///< host/service port when given
    std::string protocol = "tcp";  ///< tcp | udp
    std::string remote_cidr;       ///< VM endpoint ports only
    std::string name;
};

/// One requirement of a node template, bound to its target.
struct RequirementSpec {
    std::string name;                  ///< requirement name ("host", "local_storage", ...)
    std::string node;                  ///< target node template (empty when the requirement names only a type)
    std::string capability;            ///< name of the target's capability that satisfies it
    std::string relationship;          ///< relationship type (full name)
    Json properties = Json::object();  ///< evaluated relationship properties (e.g. AttachesTo location)
};

struct VolumeSpec {
    std::string container_path;
    std::string host_path;  ///< empty for anonymous/external volumes
    std::string mode = "RW";
    std::string raw;  ///< the text as written ("/data:rw" or "name:/path:rw:provider:driver")
};

/// One node template, resolved: inputs substituted, units normalised, defaults applied.
struct NodeSpec {
    std::string name;
    std::string type;
    std::vector<std::string> type_chain;  ///< type, its parent, ... up to tosca.nodes.Root

    int count = 1;  ///< scalable.count (default 1)
    std::optional<int> min_instances, max_instances;
    std::vector<std::string> removal_list;

    ResourceRequest resources;            ///< from the node itself or the node hosting it
    std::string host_node;                ///< name of the node this one is HostedOn, if any
    std::vector<std::string> depends_on;  ///< other nodes this one needs first (incl. Chronos parent_job)

    std::string image;  ///< container image (artifact "image") or VM image
    std::string command;
    std::vector<std::string> arguments;
    std::map<std::string, std::string> environment;
    std::vector<PortSpec> ports;
    std::vector<VolumeSpec> volumes;
    std::map<std::string, std::string> labels;
    std::vector<std::vector<std::string>> constraints;  ///< Marathon-style placement constraints
    std::string schedule;                               ///< ISO 8601 repeating interval (Chronos / CronJob)
    bool privileged = false;
    bool force_pull_image = false;

    Json properties = Json::object();  ///< every evaluated property, for target-specific extras
    /// Every property the node's type declares (set or not): a connector that writes a property
    /// into the template it forwards (IM's deployment tags) must know the type accepts it.
    std::vector<std::string> declared_properties;
    /// Evaluated capability properties: {"host": {"num_cpus": 2, ...}, "endpoint": {...}}.
    /// Values still depending on the deployment (get_attribute) are kept as the expression.
    Json capabilities = Json::object();
    /// Artifacts: {"image": {"type": "...", "file": "..."}, ...} (files evaluated).
    Json artifacts = Json::object();
    /// Standard lifecycle operations, the type's then the template's (which wins per operation):
    /// {"configure": {"implementation": "https://.../install.yml", "inputs": {...evaluated}}}.
    Json operations = Json::object();
    std::vector<RequirementSpec> requirements;  ///< in template order
};

/// True when the node's type is `type` or derives from it. Normative short names are accepted
/// ("Compute" = "tosca.nodes.Compute"). Used for the API's ?type= resource filter.
bool DerivesFrom(const NodeSpec& node, std::string_view type);

/// A placement wish: tosca.policies.indigo.SlaPlacement or Placement (named site/service).
struct PlacementPolicy {
    std::string name;
    std::string type;
    std::string sla_id;
    std::string region;
    std::string cloud_id;              ///< tosca.policies.indigo.Placement: a named site
    std::string service_id;            ///< a named service, when given
    std::vector<std::string> targets;  ///< node names the policy applies to (empty = all)
};

/// A template output: either already a value, or an expression to evaluate after deployment
/// (get_attribute of a node, possibly inside concat/join/token).
struct OutputSpec {
    std::string name;
    std::string description;
    Json value;  ///< the evaluated value when `resolved`, else the expression as written
    bool resolved = false;
};

/// Everything the orchestrator needs from one validated template: one plain structure,
/// independent of YAML, built by the TOSCA engine from a template plus the user's inputs.
struct DeploymentSpec {
    DeploymentKind kind = DeploymentKind::kVirtualMachines;
    std::string tosca_version;       ///< tosca_definitions_version as written
    std::string description;         ///< the template's top-level description
    Json metadata = Json::object();  ///< the template's top-level metadata (dashboard hints)
    std::vector<NodeSpec> nodes;     ///< in template order
    std::vector<PlacementPolicy> policies;
    std::vector<OutputSpec> outputs;
    Json inputs = Json::object();  ///< effective input values (user parameters + defaults)
    /// Parameters that are no input of the template but were let through only because they were
    /// accepted earlier (TemplateRequest::accepted_parameters): a cache of specs must not hand this
    /// spec to a request that did not accept them.
    std::vector<std::string> accepted_unknown_parameters;

    /// The nodes that turn into workloads on the target of this spec's kind (Marathon apps,
    /// Chronos jobs, Helm charts, batch jobs, or Compute VMs), in template order.
    std::vector<const NodeSpec*> WorkloadNodes() const;
    const NodeSpec* FindNode(const std::string& name) const;
    /// Nodes whose type is or derives from `type`, in template order.
    std::vector<const NodeSpec*> NodesOfType(std::string_view type) const;
};

}  // namespace orch::tosca
