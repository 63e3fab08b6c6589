// The simulated kube-scheduler and kubelet: binding pods to nodes (selectors, affinity, taints,
// capacity) with the scheduler's FitError message, then starting, finishing and removing them.
#include "kube_model.hpp"

#include <algorithm>
#include <cmath>

namespace orch::sim {
namespace {

constexpr double kEpsilon = 1e-9;
constexpr char kGpuTaintReason[] = "node(s) had taint {nvidia.com/gpu: present}, that the pod didn't tolerate";
// kube-scheduler 1.20 words a nodeSelector miss and a node-affinity miss alike (NodeAffinity
// plugin; seen on the real tier, tests/integration/kubernetes_real). Older releases said
// "didn't match node selector".
constexpr char kSelectorReason[] = "node(s) didn't match Pod's node affinity";

Json NodeLabels(const KubeNodeSpec& node) {
    Json labels = {{"kubernetes.io/hostname", node.name}, {"kubernetes.io/os", "linux"}};
    if (node.gpus > 0) {
        labels["nvidia.com/gpu.count"] = std::to_string(node.gpus);
        if (!node.gpu_product.empty()) {
            labels["nvidia.com/gpu.product"] = node.gpu_product;
        }
    }
    for (const auto& [k, v] : node.labels) {
        labels[k] = v;
    }
    return labels;
}

bool AffinityMatches(const Json& spec, const Json& labels) {
    const Json required = spec.value("affinity", Json::object())
                              .value("nodeAffinity", Json::object())
                              .value("requiredDuringSchedulingIgnoredDuringExecution", Json::object());
    const Json terms = required.value("nodeSelectorTerms", Json::array());
    if (terms.empty()) {
        return true;
    }
    // Terms are ORed; the expressions of one term are ANDed.
    return std::any_of(terms.begin(), terms.end(), [&](const Json& term) {
        return LabelSelectorMatches({{"matchExpressions", term.value("matchExpressions", Json::array())}}, labels);
    });
}

bool ToleratesGpuTaint(const Json& spec) {
    for (const auto& t : spec.value("tolerations", Json::array())) {
        const std::string key = t.value("key", "");
        const std::string op = t.value("operator", "Equal");
        const std::string effect = t.value("effect", "");
        const bool key_ok = key == "nvidia.com/gpu" || (key.empty() && op == "Exists");
        const bool value_ok = op == "Exists" || t.value("value", "") == "present";
        if (key_ok && value_ok && (effect.empty() || effect == "NoSchedule")) {
            return true;
        }
    }
    return false;
}

}  // namespace

void KubernetesSim::State::Schedule(KubePod& pod, const std::set<std::string>& exhausted, double now) {
    std::map<std::string, int> reasons;
    const bool all = exhausted.count("all") != 0;
    for (const auto& node : nodes) {
        const Json labels = NodeLabels(node);
        const Json selector = pod.spec.value("nodeSelector", Json::object());
        if (!LabelSelectorMatches({{"matchLabels", selector}}, labels) || !AffinityMatches(pod.spec, labels)) {
            ++reasons[kSelectorReason];
            continue;
        }
        if (node.gpu_taint && node.gpus > 0 && !ToleratesGpuTaint(pod.spec)) {
            ++reasons[kGpuTaintReason];
            continue;
        }
        PodDemand used;
        for (const auto& [key, other] : pods) {
            if (other.node == node.name && other.HoldsResources()) {
                used.cpu += other.demand.cpu;
                used.memory_mb += other.demand.memory_mb;
                used.gpus += other.demand.gpus;
            }
        }
        const double cpu = all || exhausted.count("cpus") != 0 ? 0 : node.cpu;
        const double memory = all || exhausted.count("mem") != 0 ? 0 : node.memory_mb;
        const int gpus = all || exhausted.count("gpus") != 0 ? 0 : node.gpus;
        bool fits = true;
        if (used.cpu + pod.demand.cpu > cpu + kEpsilon) {
            ++reasons["Insufficient cpu"];
            fits = false;
        }
        if (used.memory_mb + pod.demand.memory_mb > memory + kEpsilon) {
            ++reasons["Insufficient memory"];
            fits = false;
        }
        if (pod.demand.gpus > 0 && used.gpus + pod.demand.gpus > gpus) {
            ++reasons["Insufficient nvidia.com/gpu"];
            fits = false;
        }
        if (fits) {
            pod.node = node.name;
            pod.unschedulable.clear();
            pod.start_at = now + config.timing.pod_start;
            return;
        }
    }
    std::vector<std::string> parts;
    parts.reserve(reasons.size());
    for (const auto& [reason, count] : reasons) {
        parts.push_back(std::to_string(count) + " " + reason);
    }
    std::sort(parts.begin(), parts.end());
    std::string message = "0/" + std::to_string(nodes.size()) + " nodes are available: ";
    for (std::size_t i = 0; i < parts.size(); ++i) {
        message += (i == 0 ? "" : ", ") + parts[i];
    }
    message += ".";
    if (message != pod.unschedulable) {
        pod.unschedulable = message;
        RecordEvent(pod, "FailedScheduling", message, now);
    }
}

void KubernetesSim::State::RunPods(double now, const std::set<std::string>& exhausted) {
    std::vector<KubePod*> order;
    for (auto it = pods.begin(); it != pods.end();) {
        if (it->second.Terminating() && now >= it->second.gone_at) {
            it = pods.erase(it);
            continue;
        }
        order.push_back(&it->second);
        ++it;
    }
    // The scheduler takes pods first come, first served.
    std::sort(order.begin(), order.end(), [](const KubePod* a, const KubePod* b) { return a->created < b->created; });
    for (KubePod* pod : order) {
        if (pod->Terminating() || pod->Finished()) {
            continue;
        }
        if (pod->node.empty()) {
            Schedule(*pod, exhausted, now);
            continue;
        }
        if (now < pod->start_at) {
            continue;
        }
        if (!pod->Env("SIM_IMAGE_PULL_ERROR").empty()) {
            const std::string image = pod->spec["containers"][0].value("image", "");
            pod->waiting_reason = now >= pod->start_at + 5 ? "ImagePullBackOff" : "ErrImagePull";
            pod->waiting_message = "Back-off pulling image \"" + image + "\"";
            continue;
        }
        const bool job_pod = pod->owner_kind == "Job" || pod->spec.value("restartPolicy", "Always") != "Always";
        const std::string exit_env = pod->Env("SIM_EXIT_CODE");
        const int exit_code = exit_env.empty() ? 0 : std::atoi(exit_env.c_str());
        if (pod->phase == "Pending") {
            pod->phase = "Running";
            pod->pod_ip = "10.244.0." + std::to_string(next_pod_ip++ % 250 + 2);
            const std::string seconds = pod->Env("SIM_RUN_SECONDS");
            pod->finish_at = pod->start_at + (seconds.empty() ? config.timing.job_run : std::atof(seconds.c_str()));
        }
        if (job_pod) {
            pod->ready = true;
            if (now >= pod->finish_at) {
                pod->phase = exit_code == 0 ? "Succeeded" : "Failed";
                pod->exit_code = exit_code;
                pod->ready = false;
            }
            continue;
        }
        if (exit_code != 0) {
            pod->ready = false;
            pod->waiting_reason = "CrashLoopBackOff";
            pod->waiting_message = "back-off restarting failed container";
            pod->restarts = 1 + static_cast<int>(std::floor((now - pod->start_at) / 10));
            continue;
        }
        pod->ready = true;
    }
}

}  // namespace orch::sim
