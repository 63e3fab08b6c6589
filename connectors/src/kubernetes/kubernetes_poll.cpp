// Reading a deployment's namespace back: workload status from conditions, scheduler verdicts
// from pod conditions, pods as instances, node ports as attributes.
#include "kubernetes/kubernetes_poll.hpp"

#include "connectors/workload.hpp"
#include "kubernetes/helm_release.hpp"
#include "kubernetes/kubernetes_actions.hpp"

#include <algorithm>
#include <map>

namespace orch::connectors::kubernetes {

const Json* FindCondition(const Json& status, const std::string& type) {
    // A pointer into `status` itself: value() would return a copy that dies at once.
    const auto conditions = status.find("conditions");
    if (conditions == status.end() || !conditions->is_array()) {
        return nullptr;
    }
    for (const auto& c : *conditions) {
        if (c.is_object() && c.value("type", "") == type) {
            return &c;
        }
    }
    return nullptr;
}

namespace {

struct Verdict {
    bool ready = false;
    std::string waiting;
    std::optional<Failure> failure;
};

// A workload's failure as the poll's answer: the site named, what was read so far kept.
Observation FailedOn(const Failure& failure, const Handle& handle, const Observation& obs) {
    return Observation{
        Phase::kFailed,
        failure.message + " (site " + handle.target.site_id + ")",
        failure.kind,
        obs.instances,
        obs.attributes,
        {}};
}

bool ConditionTrue(const Json& status, const std::string& type) {
    const Json* c = FindCondition(status, type);
    return c != nullptr && c->value("status", "") == "True";
}

Verdict JudgeDeployment(const Json& d) {
    Verdict v;
    const Json status = d.value("status", Json::object());
    const int desired = d["spec"].value("replicas", 1);
    const int generation = d["metadata"].value("generation", 0);
    const int available = status.value("availableReplicas", 0);
    v.ready = status.value("observedGeneration", 0) >= generation && status.value("updatedReplicas", 0) == desired &&
              available == desired && (desired == 0 || ConditionTrue(status, "Available"));
    const Json* progressing = FindCondition(status, "Progressing");
    if (progressing != nullptr && progressing->value("status", "") == "False" &&
        progressing->value("reason", "") == "ProgressDeadlineExceeded") {
        v.failure = Failure{
            FailureKind::kTryAnotherSite,
            "Deployment " + d["metadata"].value("name", "") + ": " + progressing->value("message", "")};
    }
    v.waiting = "Deployment " + d["metadata"].value("name", "") + ": " + std::to_string(available) + "/" +
                std::to_string(desired) + " replicas available";
    return v;
}

Verdict JudgeJob(const Json& job) {
    Verdict v;
    const Json status = job.value("status", Json::object());
    const std::string name = job["metadata"].value("name", "");
    v.ready = ConditionTrue(status, "Complete");
    if (ConditionTrue(status, "Failed")) {
        const Json* failed = FindCondition(status, "Failed");
        v.failure = Failure{
            FailureKind::kTryAnotherSite,
            "Job " + name + " failed: " + failed->value("reason", "") + " (" + failed->value("message", "") + ")"};
    }
    v.waiting = "Job " + name + ": " + std::to_string(status.value("succeeded", 0)) + "/" +
                std::to_string(job["spec"].value("completions", 1)) + " completions";
    return v;
}

bool Terminating(const Json& pod) {
    const auto metadata = pod.find("metadata");
    return metadata != pod.end() && metadata->contains("deletionTimestamp");
}

// A pod in a waiting state that only repeats itself: the application cannot start here.
bool CannotStart(const std::string& reason) {
    return reason == "CrashLoopBackOff" || reason == "ImagePullBackOff" || reason == "ErrImagePull";
}

// The container's last exit, which says why it crash-loops ("Error, exit code 1: CUDA error ...").
std::string LastExit(const Json& container_status) {
    const Json terminated = container_status.value("lastState", Json::object()).value("terminated", Json::object());
    if (terminated.empty()) {
        return "";
    }
    std::string text = "; last exit: " + terminated.value("reason", "") + " (exit code " +
                       std::to_string(terminated.value("exitCode", 0)) + ")";
    if (!terminated.value("message", "").empty()) {
        text += ": " + terminated.value("message", "");
    }
    return text;
}

// What the pods of one workload say: unplaceable (another site may have the GPUs), a bad image
// name (the user's mistake), or a waiting reason worth showing; `cannot_start` gets the first
// container that crash-loops or cannot pull its image, with its last exit.
//
// Unschedulable is a verdict on the site only when nothing is about to free resources. Pods being
// deleted (`terminating` in the namespace) keep their GPUs until their kubelets confirm the end,
// and the scheduler retries a second or so after that; during a Deployment's later rollouts
// (`rollout`: generation > 1) old pods go and new ones come all the time. A pod replacing one of
// them is Unschedulable for a while although the site is fine (seen with the real scheduler), so
// then it is waiting, and a rollout that really cannot finish ends with its progress deadline.
std::optional<Failure> JudgePods(
    const std::vector<const Json*>& pods,
    int terminating,
    bool rollout,
    std::string& waiting,
    std::optional<std::string>& cannot_start
) {
    for (const Json* pod : pods) {
        const Json status = pod->value("status", Json::object());
        const std::string name = (*pod)["metadata"].value("name", "");
        const Json* scheduled = FindCondition(status, "PodScheduled");
        if (scheduled != nullptr && scheduled->value("status", "") == "False" &&
            scheduled->value("reason", "") == "Unschedulable" && !Terminating(*pod)) {
            const std::string verdict = "pod " + name + " cannot be scheduled: " + scheduled->value("message", "");
            if (terminating == 0 && !rollout) {
                return Failure{FailureKind::kTryAnotherSite, verdict};
            }
            waiting += "; " + verdict +
                       (terminating > 0 ? " (waiting for " + std::to_string(terminating) +
                                              " terminating pod(s) to free their resources)"
                                        : " (a rollout: its progress deadline decides)");
            continue;
        }
        for (const auto& cs : status.value("containerStatuses", Json::array())) {
            const Json waiting_state = cs.value("state", Json::object()).value("waiting", Json::object());
            const std::string reason = waiting_state.value("reason", "");
            if (reason == "InvalidImageName") {
                return Failure{
                    FailureKind::kUserError,
                    "pod " + name + ": invalid image name: " + waiting_state.value("message", "")};
            }
            if (!reason.empty() && reason != "ContainerCreating") {
                const std::string said =
                    "pod " + name + ": " + reason +
                    (waiting_state.contains("message") ? " (" + waiting_state.value("message", "") + ")" : "");
                waiting += "; " + said;
                if (CannotStart(reason) && !cannot_start) {
                    cannot_start = said + LastExit(cs);
                }
            }
        }
    }
    return std::nullopt;
}

// The one map from a pod's phase to instance statuses; the phase "Unknown" (node unreachable)
// and any word Kubernetes may add are kUnknown.
InstanceStatus PodState(const Json& pod) {
    const std::string phase = pod["status"].value("phase", "");
    if (!pod["metadata"].value("deletionTimestamp", "").empty()) {
        return InstanceStatus::kDeleting;
    }
    if (phase == "Running") {
        return ConditionTrue(pod["status"], "Ready") ? InstanceStatus::kStarted : InstanceStatus::kStarting;
    }
    if (phase == "Succeeded") {
        return InstanceStatus::kStarted;
    }
    if (phase == "Pending" || phase.empty()) {
        return InstanceStatus::kCreating;  // empty: a pod just created, its status not written yet
    }
    return phase == "Failed" ? InstanceStatus::kError : InstanceStatus::kUnknown;
}

void AddServiceAttributes(
    const tosca::NodeSpec& node, const Json& service, const SiteTarget& target, Observation& obs
) {
    Json service_ports = Json::object();
    Json publish = Json::array();
    Json endpoints = Json::array();
    const auto workers = OptionList(target, "worker_nodes_ip");
    for (const auto& p : service["spec"].value("ports", Json::array())) {
        const std::string protocol = p.value("protocol", "TCP") == "UDP" ? "udp" : "tcp";
        const Json entry = {{"source", p.value("port", 0)}, {"target", p.value("nodePort", 0)}, {"protocol", protocol}};
        service_ports[p.value("name", "")] = entry;
        publish.push_back(
            {{"source", p.value("targetPort", Json(0))}, {"target", p.value("nodePort", 0)}, {"protocol", protocol}}
        );
        for (const auto& ip : workers) {
            endpoints.push_back(ip + ":" + std::to_string(p.value("nodePort", 0)));
        }
    }
    obs.attributes[node.name]["service"] = service["metadata"].value("name", "");
    obs.attributes[node.name]["cluster_ip"] = service["spec"].value("clusterIP", "");
    obs.attributes[node.name]["service_ports"] = service_ports;
    obs.attributes[node.name]["publish_ports"] = publish;
    obs.attributes[node.name]["endpoints"] = endpoints;
    if (!node.host_node.empty()) {
        obs.attributes[node.host_node]["host"]["publish_ports"] = publish;
    }
}

// A release's chart objects carry app.kubernetes.io/instance=<release> (the Helm convention):
// its Services give the ports, its pods are the node's instances.
ConnectorResult<Verdict> ReadHelmRelease(
    RestClient& rest,
    const KubeManifest& m,
    const Json& release,
    const Json& pods,
    const SiteTarget& target,
    Observation& obs
) {
    const std::string ns = release["metadata"].value("namespace", "");
    const std::string selector = "?labelSelector=app.kubernetes.io%2Finstance%3D" + m.name;
    ORCH_CONNECTOR_TRY(RestResponse sr, rest.Call("GET", "/api/v1/namespaces/" + ns + "/services" + selector));
    if (!sr.Ok()) {
        return rest.StatusFailure(sr, "listing the services of release " + m.name);
    }
    ORCH_CONNECTOR_TRY(Json services, rest.ParseBody(sr, "listing the services of release " + m.name));
    Json& attributes = obs.attributes[m.node];
    attributes["kind"] = "HelmRelease";
    attributes["release"] = m.name;
    attributes["worker_nodes_ips"] = OptionList(target, "worker_nodes_ip");
    attributes["service_ports"] = HelmServicePorts(m.name, services);
    const HelmVerdict helm = JudgeHelmRelease(release);
    int index = 0;
    for (const auto& pod : pods) {
        if (pod["metadata"].value("labels", Json::object()).value("app.kubernetes.io/instance", "") == m.name) {
            const Json st = pod.value("status", Json::object());
            obs.instances.push_back(
                {m.node,
                 index++,
                 pod["metadata"].value("name", ""),
                 PodState(pod),
                 {{"pod_ip", st.value("podIP", "")},
                  {"host_ip", st.value("hostIP", "")},
                  {"phase", st.value("phase", "")}}}
            );
        }
    }
    if (index == 0) {  // a chart without pods (or not installed yet): the release stands for the node
        obs.instances.push_back(
            {m.node,
             0,
             m.name,
             helm.ready ? InstanceStatus::kStarted
                        : (helm.failure ? InstanceStatus::kError : InstanceStatus::kCreating),
             {{"release", m.name}}}
        );
    }
    return Verdict{helm.ready, helm.waiting, helm.failure};
}

bool ScaleOnly(const Handle& handle, const std::string& path) {
    for (const auto& object : handle.state.value("objects", Json::array())) {
        if (object.value("path", "") == path) {
            return object.value("scale", false);
        }
    }
    return false;
}

}  // namespace

ConnectorResult<Observation> PollNamespace(
    RestClient& rest,
    const Handle& handle,
    const tosca::DeploymentSpec& spec,
    const std::vector<KubeManifest>& manifests
) {
    const std::string ns = manifests.front().name;
    ORCH_CONNECTOR_TRY(RestResponse nr, rest.Call("GET", "/api/v1/namespaces/" + ns));
    Observation obs;
    if (nr.status == 404) {
        obs.phase = Phase::kGone;
        return obs;
    }
    if (!nr.Ok()) {
        return rest.StatusFailure(nr, "reading namespace " + ns);
    }
    ORCH_CONNECTOR_TRY(Json namespace_object, rest.ParseBody(nr, "reading namespace " + ns));
    if (namespace_object.value("status", Json::object()).value("phase", "") == "Terminating") {
        obs.reason = "namespace " + ns + " is terminating";
        return obs;
    }
    ORCH_CONNECTOR_TRY(RestResponse pr, rest.Call("GET", "/api/v1/namespaces/" + ns + "/pods"));
    if (!pr.Ok()) {
        return rest.StatusFailure(pr, "listing pods of " + ns);
    }
    ORCH_CONNECTOR_TRY(Json pod_list, rest.ParseBody(pr, "listing pods of " + ns));
    const Json pod_items = pod_list.value("items", Json::array());  // outlives the pointers below
    const int terminating =
        static_cast<int>(std::count_if(pod_items.begin(), pod_items.end(), [](const Json& p) { return Terminating(p); })
        );
    std::vector<std::string> waiting;
    std::map<std::string, int> index;
    for (std::size_t i = 1; i < manifests.size(); ++i) {
        const KubeManifest& m = manifests[i];
        const tosca::NodeSpec* node = spec.FindNode(m.node);
        ORCH_CONNECTOR_TRY(RestResponse r, rest.Call("GET", m.collection + "/" + m.name));
        if (r.status == 404) {
            return Observation{
                Phase::kFailed,
                m.kind + " " + m.name + " disappeared from namespace " + ns,
                FailureKind::kTryAnotherSite,
                {},
                {},
                {}};
        }
        if (!r.Ok()) {
            return rest.StatusFailure(r, "reading " + m.kind + " " + m.name);
        }
        ORCH_CONNECTOR_TRY(Json object, rest.ParseBody(r, "reading " + m.kind + " " + m.name));
        obs.attributes[m.node]["namespace"] = ns;
        if (m.kind == "Service") {
            AddServiceAttributes(*node, object, handle.target, obs);
            continue;
        }
        if (m.kind == "PersistentVolumeClaim") {
            continue;  // storage of the node's workload, judged through its pods
        }
        if (m.kind == "HelmRepository") {
            continue;  // a source Flux cannot read shows in the release's Ready condition
        }
        if (m.kind == "HelmRelease") {
            ORCH_CONNECTOR_TRY(Verdict v, ReadHelmRelease(rest, m, object, pod_items, handle.target, obs));
            if (v.failure) {
                return FailedOn(*v.failure, handle, obs);
            }
            if (!v.ready) {
                waiting.push_back(v.waiting);
            }
            continue;
        }
        obs.attributes[m.node]["kind"] = m.kind;
        obs.attributes[m.node]["worker_nodes_ips"] = OptionList(handle.target, "worker_nodes_ip");
        std::vector<const Json*> pods;
        for (const auto& pod : pod_items) {
            if (pod["metadata"].value("labels", Json::object()).value("app.kubernetes.io/name", "") == m.name) {
                pods.push_back(&pod);
                const Json st = pod.value("status", Json::object());
                obs.instances.push_back(
                    {m.node,
                     index[m.node]++,
                     pod["metadata"].value("name", ""),
                     PodState(pod),
                     {{"pod_ip", st.value("podIP", "")},
                      {"host_ip", st.value("hostIP", "")},
                      {"phase", st.value("phase", "")}}}
                );
            }
        }
        // A stopped Deployment (0 replicas, the count it had in its annotation) has no pods: its
        // instances are reported stopped, by index, so the resources show STOPPED, not vanish.
        if (m.kind == "Deployment") {
            for (int stopped = StoppedReplicas(object); stopped > 0; --stopped) {
                obs.instances.push_back({m.node, index[m.node]++, "", InstanceStatus::kStopped, Json::object()});
            }
        }
        Verdict v = m.kind == "Deployment" ? JudgeDeployment(object)
                    : m.kind == "Job"      ? JudgeJob(object)
                                           : Verdict{true, "", {}};
        if (m.kind == "CronJob") {
            obs.attributes[m.node]["last_schedule_time"] =
                object.value("status", Json::object()).value("lastScheduleTime", "");
        }
        std::string detail;
        if (!v.ready) {
            // An update that only changed the replica count (Update marks it `scale`) is no
            // rollout: no old pod will go away to make room, so Unschedulable is a verdict now,
            // with the scheduler's reason, rather than after the progress deadline.
            const Json dstatus = object.value("status", Json::object());
            const bool rollout = m.kind == "Deployment" && object["metadata"].value("generation", 1) > 1 &&
                                 !ScaleOnly(handle, m.collection + "/" + m.name);
            std::optional<std::string> cannot_start;
            if (auto pod_failure = JudgePods(pods, terminating, rollout, detail, cannot_start)) {
                v.failure = pod_failure;
                if (m.kind == "Deployment" && object["metadata"].value("generation", 1) > 1) {
                    // Say what the failed scale leaves on the site.
                    v.failure->message += "; the Deployment keeps " +
                                          std::to_string(dstatus.value("availableReplicas", 0)) + " of " +
                                          std::to_string(object["spec"].value("replicas", 1)) +
                                          " replicas running, the others Pending until it is scaled back or deleted";
                }
            }
            if (cannot_start) {
                obs.cannot_start = true;
                obs.site_message = std::move(cannot_start);
            }
        }
        if (v.failure) {
            return FailedOn(*v.failure, handle, obs);
        }
        if (!v.ready) {
            waiting.push_back(v.waiting + detail);
        }
    }
    obs.phase = waiting.empty() ? Phase::kReady : Phase::kInProgress;
    for (const auto& w : waiting) {
        obs.reason += (obs.reason.empty() ? "" : "; ") + w;
    }
    return obs;
}

}  // namespace orch::connectors::kubernetes
