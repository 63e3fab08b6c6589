// TOSCA nodes -> Kubernetes objects (apps/v1 Deployment, v1 Service, batch/v1 Job,
// batch/v1beta1 CronJob, Flux HelmReleases) valid for a 1.20 API server.
#include "connectors/kubernetes_connector.hpp"
#include "connectors/naming.hpp"
#include "connectors/workload.hpp"
#include "kubernetes/helm_release.hpp"
#include "tosca/scalar_unit.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <sstream>

namespace orch::connectors {
namespace {

constexpr char kManagedBy[] = "indigo-orchestrator";

Json Labels(const std::string& name, const std::string& instance) {
    return {
        {"app.kubernetes.io/name", name},
        {"app.kubernetes.io/instance", instance},
        {"app.kubernetes.io/managed-by", kManagedBy}};
}

Json Selector(const std::string& name, const std::string& instance) {
    return {{"matchLabels", {{"app.kubernetes.io/name", name}, {"app.kubernetes.io/instance", instance}}}};
}

std::string CpuQuantity(double cpus) {
    const long long millis = std::llround(cpus * 1000);
    return millis % 1000 == 0 ? std::to_string(millis / 1000) : std::to_string(millis) + "m";
}

std::vector<std::string> GpuProducts(const tosca::NodeSpec& node, const SiteTarget& target) {
    const std::string& model = node.resources.gpu.model;
    const auto map = target.options.find("gpu_products");
    if (map != target.options.end() && map->is_object()) {
        for (const auto& [key, values] : map->items()) {
            std::string a = key;
            std::string b = model;
            std::transform(a.begin(), a.end(), a.begin(), [](unsigned char c) { return std::tolower(c); });
            std::transform(b.begin(), b.end(), b.begin(), [](unsigned char c) { return std::tolower(c); });
            if (a == b && values.is_array()) {
                return values.get<std::vector<std::string>>();
            }
        }
    }
    std::string label = model;
    std::replace(label.begin(), label.end(), ' ', '-');
    return {label};
}

Json Resources(const tosca::NodeSpec& node) {
    Json requests = Json::object();
    Json limits = Json::object();
    if (node.resources.cpus) {
        requests["cpu"] = CpuQuantity(*node.resources.cpus);
    }
    if (node.resources.mem_mb) {
        requests["memory"] = std::to_string(*node.resources.mem_mb) + "Mi";
        limits["memory"] = requests["memory"];
    }
    if (node.resources.disk_mb) {
        requests["ephemeral-storage"] = std::to_string(*node.resources.disk_mb) + "Mi";
    }
    if (node.resources.gpu.count > 0) {
        // Extended resources cannot be overcommitted: the limit is what counts.
        limits["nvidia.com/gpu"] = node.resources.gpu.count;
    }
    Json out = Json::object();
    if (!requests.empty()) {
        out["requests"] = requests;
    }
    if (!limits.empty()) {
        out["limits"] = limits;
    }
    return out;
}

ConnectorResult<Json> Container(const tosca::NodeSpec& node, const std::string& name, Json& volumes) {
    Json c = {
        {"name", name},
        {"image", node.image},
        {"imagePullPolicy", node.force_pull_image ? "Always" : "IfNotPresent"},
        {"resources", Resources(node)},
    };
    if (!node.command.empty()) {
        c["command"] = {"/bin/sh", "-c", ShellJoin(node.command, node.arguments)};
    } else if (!node.arguments.empty()) {
        c["args"] = node.arguments;
    }
    Json env = Json::array();
    for (const auto& [key, value] : node.environment) {
        env.push_back({{"name", key}, {"value", value}});
    }
    if (!env.empty()) {
        c["env"] = env;
    }
    Json ports = Json::array();
    for (const auto& p : node.ports) {
        ports.push_back({{"containerPort", p.target}, {"protocol", p.protocol == "udp" ? "UDP" : "TCP"}});
    }
    if (!ports.empty()) {
        c["ports"] = ports;
    }
    if (node.privileged) {
        c["securityContext"] = {{"privileged", true}};
    }
    Json mounts = Json::array();
    for (std::size_t i = 0; i < node.volumes.size(); ++i) {
        const auto& v = node.volumes[i];
        if (std::count(v.raw.begin(), v.raw.end(), ':') >= 4) {
            return Failure{
                FailureKind::kUserError,
                "node " + node.name + ": external volumes (" + v.raw + ") are not supported on Kubernetes"};
        }
        const std::string volume = "vol-" + std::to_string(i);
        mounts.push_back(
            {{"name", volume}, {"mountPath", v.container_path}, {"readOnly", v.mode == "RO" || v.mode == "ro"}}
        );
        volumes.push_back(
            v.host_path.empty() ? Json{{"name", volume}, {"emptyDir", Json::object()}}
                                : Json{{"name", volume}, {"hostPath", {{"path", v.host_path}}}}
        );
    }
    if (!mounts.empty()) {
        c["volumeMounts"] = mounts;
    }
    return c;
}

const Json& ListProperty(const tosca::NodeSpec& node, const char* key) {
    static const Json kEmpty = Json::array();
    const auto it = node.properties.find(key);
    return it != node.properties.end() && it->is_array() ? *it : kEmpty;
}

/// The claim name of the shipped types' volume `volume` of workload `workload`.
std::string ClaimName(const std::string& workload, const std::string& volume) {
    return DnsLabel(workload + "-" + volume);
}

/// Bytes of a scalar-unit.size property value (text as written, or a number of bytes).
std::optional<std::uint64_t> SizeBytes(const Json& value) {
    if (value.is_number_unsigned() || (value.is_number_integer() && value.get<std::int64_t>() > 0)) {
        return value.get<std::uint64_t>();
    }
    if (!value.is_string()) {
        return std::nullopt;
    }
    const auto size = tosca::ParseScalarUnit(value.get<std::string>(), tosca::ScalarKind::kSize);
    return size ? tosca::SizeInUnits(*size, 1.0) : std::nullopt;
}

// The shipped types' `volumes` (tosca.datatypes.indigo.Kubernetes.Volume: one PersistentVolumeClaim
// each, created before the workload) and `secrets` (SecretReference: Secrets already on the site,
// by name only; no value ever passes through the orchestrator, so none can reach a log).
ConnectorResult<bool> AddClaimsAndSecrets(const tosca::NodeSpec& node, const std::string& workload, Json& pod) {
    Json& container = pod["containers"][0];
    Json volumes = pod.value("volumes", Json::array());
    Json mounts = container.value("volumeMounts", Json::array());
    Json env = container.value("env", Json::array());
    for (const auto& v : ListProperty(node, "volumes")) {
        const std::string name = v.value("name", "");
        const std::string path = v.value("mount_path", "");
        if (name.empty() || path.empty()) {
            return Failure{FailureKind::kUserError, "node " + node.name + ": a volume needs a name and a mount_path"};
        }
        const std::string volume = "pvc-" + DnsLabel(name, 50);
        volumes.push_back(
            {{"name", volume},
             {"persistentVolumeClaim",
              {{"claimName", ClaimName(workload, name)}, {"readOnly", v.value("read_only", false)}}}}
        );
        mounts.push_back({{"name", volume}, {"mountPath", path}, {"readOnly", v.value("read_only", false)}});
    }
    int index = 0;
    for (const auto& ref : ListProperty(node, "secrets")) {
        const std::string secret = ref.value("secret", "");
        const std::string key = ref.value("key", "");
        const std::string var = ref.value("env", "");
        const std::string path = ref.value("mount_path", "");
        if (secret.empty() || (!var.empty() && key.empty()) || (var.empty() && path.empty())) {
            return Failure{
                FailureKind::kUserError,
                "node " + node.name + ": a secret reference needs secret with key and env, or with mount_path"};
        }
        if (!var.empty()) {
            env.push_back({{"name", var}, {"valueFrom", {{"secretKeyRef", {{"name", secret}, {"key", key}}}}}});
        }
        if (!path.empty()) {
            const std::string volume = "secret-" + std::to_string(index);
            volumes.push_back({{"name", volume}, {"secret", {{"secretName", secret}}}});
            mounts.push_back({{"name", volume}, {"mountPath", path}, {"readOnly", true}});
        }
        ++index;
    }
    if (!volumes.empty()) {
        pod["volumes"] = volumes;
    }
    if (!mounts.empty()) {
        container["volumeMounts"] = mounts;
    }
    if (!env.empty()) {
        container["env"] = env;
    }
    return true;
}

/// The PersistentVolumeClaims of a workload's shipped-type volumes.
ConnectorResult<std::vector<KubeManifest>> Claims(
    const tosca::NodeSpec& node, const std::string& workload, const std::string& ns, const std::string& instance
) {
    std::vector<KubeManifest> out;
    for (const auto& v : ListProperty(node, "volumes")) {
        const std::string name = v.value("name", "");
        const auto bytes = SizeBytes(v.value("size", Json()));
        if (!bytes || *bytes == 0) {
            return Failure{FailureKind::kUserError, "node " + node.name + ": volume " + name + " needs a size"};
        }
        Json spec = {
            {"accessModes", Json::array({v.value("access_mode", "ReadWriteOnce")})},
            {"resources", {{"requests", {{"storage", std::to_string(*bytes)}}}}}};
        if (const std::string cls = v.value("storage_class", ""); !cls.empty()) {
            spec["storageClassName"] = cls;
        }
        const std::string claim = ClaimName(workload, name);
        out.push_back(
            {node.name,
             "PersistentVolumeClaim",
             claim,
             "/api/v1/namespaces/" + ns + "/persistentvolumeclaims",
             {{"apiVersion", "v1"},
              {"kind", "PersistentVolumeClaim"},
              {"metadata", {{"name", claim}, {"namespace", ns}, {"labels", Labels(workload, instance)}}},
              {"spec", spec}}}
        );
    }
    return out;
}

ConnectorResult<Json> PodSpec(
    const tosca::NodeSpec& node, const std::string& name, const SiteTarget& target, const char* restart
) {
    Json volumes = Json::array();
    ORCH_CONNECTOR_TRY(Json container, Container(node, name, volumes));
    Json spec = {{"containers", Json::array({container})}, {"restartPolicy", restart}};
    if (!volumes.empty()) {
        spec["volumes"] = volumes;
    }
    ORCH_CONNECTOR_TRY(bool added, AddClaimsAndSecrets(node, name, spec));
    (void)added;
    Json selector = Json::object();
    for (const auto& c : node.constraints) {
        if (c.size() == 3 && (c[1] == "CLUSTER" || c[1] == "IS")) {
            selector[c[0]] = c[2];
        } else {
            return Failure{
                FailureKind::kUserError,
                "node " + node.name + ": only [label, CLUSTER, value] constraints have a Kubernetes equivalent"};
        }
    }
    if (node.resources.gpu.count > 0) {
        spec["tolerations"] =
            Json::array({{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}});
        if (!node.resources.gpu.model.empty()) {
            const auto products = GpuProducts(node, target);
            if (products.size() == 1) {
                selector["nvidia.com/gpu.product"] = products[0];
            } else {
                spec["affinity"] = {
                    {"nodeAffinity",
                     {{"requiredDuringSchedulingIgnoredDuringExecution",
                       {{"nodeSelectorTerms",
                         Json::array(
                             {{{"matchExpressions",
                                Json::array(
                                    {{{"key", "nvidia.com/gpu.product"}, {"operator", "In"}, {"values", products}}}
                                )}}}
                         )}}}}}};
            }
        }
    }
    if (!selector.empty()) {
        spec["nodeSelector"] = selector;
    }
    return spec;
}

Json ServiceFor(
    const tosca::NodeSpec& node,
    const std::string& name,
    const std::string& ns,
    const std::string& instance,
    const SiteTarget& target
) {
    Json ports = Json::array();
    for (std::size_t i = 0; i < node.ports.size(); ++i) {
        const auto& p = node.ports[i];
        ports.push_back({
            {"name", "p" + std::to_string(i) + "-" + std::to_string(p.target)},
            {"port", p.published.value_or(p.target)},
            {"targetPort", p.target},
            {"protocol", p.protocol == "udp" ? "UDP" : "TCP"},
        });
    }
    return {
        {"apiVersion", "v1"},
        {"kind", "Service"},
        {"metadata", {{"name", Dns1035Label(name)}, {"namespace", ns}, {"labels", Labels(name, instance)}}},
        {"spec",
         {{"type", OptionString(target, "service_type", "NodePort")},
          {"selector", Selector(name, instance)["matchLabels"]},
          {"ports", ports}}},
    };
}

// The default rollout (25% surge) starts a new pod before stopping an old one; with GPUs that
// extra pod needs a GPU the deployment does not hold, and when the nodes have none free it stays
// Unschedulable and the rollout never ends (seen with the real scheduler, kubernetes_real). GPU
// Deployments are therefore updated one pod at a time, in place.
Json GpuRolloutStrategy() {
    return {{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxSurge", 0}, {"maxUnavailable", 1}}}};
}

ConnectorResult<KubeManifest> Workload(
    const tosca::NodeSpec& node,
    const std::string& name,
    const std::string& ns,
    const std::string& instance,
    const SiteTarget& target
) {
    const Json labels = Labels(name, instance);
    const KubeWorkload kind = KubeWorkloadOf(node);
    ORCH_CONNECTOR_TRY(Json pod, PodSpec(node, name, target, kind == KubeWorkload::kDeployment ? "Always" : "Never"));
    const Json pod_template = {{"metadata", {{"labels", labels}}}, {"spec", pod}};
    const Json metadata = {{"name", name}, {"namespace", ns}, {"labels", labels}};
    if (kind == KubeWorkload::kDeployment) {
        const int replicas =
            node.count == 1 && node.properties.contains("replicas") ? PropertyInt(node, "replicas", 1) : node.count;
        Json spec = {
            {"replicas", std::max(0, replicas)}, {"selector", Selector(name, instance)}, {"template", pod_template}};
        if (node.resources.gpu.count > 0) {
            spec["strategy"] = GpuRolloutStrategy();
        }
        return KubeManifest{
            node.name,
            "Deployment",
            name,
            "/apis/apps/v1/namespaces/" + ns + "/deployments",
            {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"metadata", metadata}, {"spec", spec}}};
    }
    const int count = std::max(1, node.count);
    const Json job_spec = {
        {"backoffLimit", std::max(0, PropertyInt(node, "retries", 2))},
        {"completions", count},
        {"parallelism", count},
        {"template", pod_template}};
    if (kind == KubeWorkload::kJob) {
        return KubeManifest{
            node.name,
            "Job",
            name,
            "/apis/batch/v1/namespaces/" + ns + "/jobs",
            {{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"metadata", metadata}, {"spec", job_spec}}};
    }
    ORCH_CONNECTOR_TRY(std::string cron, IsoScheduleToCron(node.schedule));
    return KubeManifest{
        node.name,
        "CronJob",
        name,
        "/apis/batch/v1beta1/namespaces/" + ns + "/cronjobs",
        {{"apiVersion", "batch/v1beta1"},
         {"kind", "CronJob"},
         {"metadata", metadata},
         {"spec",
          {{"schedule", cron},
           {"concurrencyPolicy", "Forbid"},
           {"jobTemplate", {{"metadata", {{"labels", labels}}}, {"spec", job_spec}}}}}}};
}

}  // namespace

KubeWorkload KubeWorkloadOf(const tosca::NodeSpec& node) {
    if (!node.schedule.empty()) {
        return KubeWorkload::kCronJob;
    }
    if (HasType(node, kKubernetesJobType) || HasType(node, kChronosJobType)) {
        return KubeWorkload::kJob;
    }
    return KubeWorkload::kDeployment;
}

std::string KubernetesNamespace(const std::string& deployment_id, const SiteTarget& target) {
    std::string prefix = OptionString(target, "namespace_prefix", target.project.empty() ? "orch" : target.project);
    return DnsLabel(DnsLabel(prefix, 26) + "-" + DnsLabel(deployment_id, 36), 63);
}

ConnectorResult<std::vector<KubeManifest>> BuildKubernetesManifests(const DeployRequest& request) {
    if (request.spec == nullptr) {
        return Failure{FailureKind::kUserError, "no deployment spec"};
    }
    const auto nodes = NodesOfTypes(
        *request.spec, {kKubernetesAppType, kKubernetesDeploymentType, kKubernetesJobType, kHelmChartType}
    );
    if (nodes.empty()) {
        return Failure{FailureKind::kUserError, "the template has no Kubernetes workload node"};
    }
    const std::string ns = KubernetesNamespace(request.deployment_id, request.target);
    const std::string instance = DnsLabel(request.deployment_id);
    std::vector<KubeManifest> out;
    out.push_back(
        {"",
         "Namespace",
         ns,
         "/api/v1/namespaces",
         {{"apiVersion", "v1"},
          {"kind", "Namespace"},
          {"metadata",
           {{"name", ns},
            {"labels", {{"app.kubernetes.io/instance", instance}, {"app.kubernetes.io/managed-by", kManagedBy}}}}}}}
    );
    std::vector<std::string> raw;
    raw.reserve(nodes.size());
    for (const auto* node : nodes) {
        raw.push_back(node->name);
    }
    // 52 characters leave room for the suffix a CronJob adds to its Jobs.
    const auto names = UniqueNames(
        raw, [](std::string_view n) { return Dns1035Label(n, 52); }, 52
    );
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const auto& node = *nodes[i];
        if (HasType(node, kHelmChartType)) {
            ORCH_CONNECTOR_TRY(
                std::vector<KubeManifest> helm, kubernetes::HelmManifests(node, names[i], ns, request.target)
            );
            std::move(helm.begin(), helm.end(), std::back_inserter(out));
            continue;
        }
        if (KubeWorkloadOf(node) != KubeWorkload::kDeployment) {
            for (const auto& dep : node.depends_on) {
                if (request.spec->FindNode(dep) != nullptr && std::find(raw.begin(), raw.end(), dep) != raw.end()) {
                    return Failure{
                        FailureKind::kUserError,
                        "job node " + node.name + " depends on job " + dep +
                            "; Kubernetes has no job dependencies (use a Chronos site)"};
                }
            }
        }
        // Claims first: the workload's pods mount them.
        ORCH_CONNECTOR_TRY(std::vector<KubeManifest> claims, Claims(node, names[i], ns, instance));
        for (auto& claim : claims) {
            out.push_back(std::move(claim));
        }
        ORCH_CONNECTOR_TRY(KubeManifest workload, Workload(node, names[i], ns, instance, request.target));
        out.push_back(std::move(workload));
        if (KubeWorkloadOf(node) == KubeWorkload::kDeployment && !node.ports.empty()) {
            Json service = ServiceFor(node, names[i], ns, instance, request.target);
            out.push_back(
                {node.name,
                 "Service",
                 service["metadata"]["name"].get<std::string>(),
                 "/api/v1/namespaces/" + ns + "/services",
                 service}
            );
        }
    }
    return out;
}

}  // namespace orch::connectors
