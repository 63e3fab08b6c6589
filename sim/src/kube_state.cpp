// Bookkeeping of the simulated API server: object lookup, ids, pods, ownership and the pod view.
#include "kube_model.hpp"
#include "sim/sim_clock.hpp"

#include <algorithm>

namespace orch::sim {

std::string KubePod::Env(const std::string& key) const {
    for (const auto& c : spec.value("containers", Json::array())) {
        for (const auto& e : c.value("env", Json::array())) {
            if (e.value("name", "") == key) {
                return e.value("value", "");
            }
        }
    }
    return "";
}

KubeObject* KubernetesSim::State::Find(const std::string& kind, const std::string& ns, const std::string& name) {
    const auto it = objects.find(Key(kind, ns, name));
    return it == objects.end() ? nullptr : &it->second;
}

std::string KubernetesSim::State::RandomSuffix(std::size_t length) {
    static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";  // the API server's alphabet
    std::uniform_int_distribution<std::size_t> pick(0, kAlphabet.size() - 1);
    std::string out;
    for (std::size_t i = 0; i < length; ++i) {
        out += kAlphabet[pick(rng)];
    }
    return out;
}

std::string KubernetesSim::State::NewUid() {
    std::uniform_int_distribution<int> hex(0, 15);
    std::string out;
    for (int i = 0; i < 32; ++i) {
        out += "0123456789abcdef"[hex(rng)];
        if (i == 7 || i == 11 || i == 15 || i == 19) {
            out += '-';
        }
    }
    return out;
}

void KubernetesSim::State::Touch(KubeObject& object) {
    object.body["metadata"]["resourceVersion"] = NextResourceVersion();
}

void KubernetesSim::State::RecordEvent(
    const KubePod& pod, const std::string& reason, const std::string& message, double now
) {
    if (events.size() >= 500) {
        events.erase(events.begin());
    }
    events.push_back({
        {"kind", "Event"},
        {"apiVersion", "v1"},
        {"metadata", {{"name", pod.name + "." + RandomSuffix(8)}, {"namespace", pod.ns}}},
        {"involvedObject", {{"kind", "Pod"}, {"name", pod.name}, {"namespace", pod.ns}, {"uid", pod.uid}}},
        {"reason", reason},
        {"message", message},
        {"type", "Warning"},
        {"count", 1},
        {"firstTimestamp", KubeTime(now)},
        {"lastTimestamp", KubeTime(now)},
        {"source", {{"component", "default-scheduler"}}},
    });
}

void KubernetesSim::State::CreatePod(
    const KubeObject& owner, const Json& pod_template, const std::string& hash, double now
) {
    KubePod pod;
    pod.ns = owner.ns;
    pod.name = owner.name + (hash.empty() ? "" : "-" + hash) + "-" + RandomSuffix(5);
    pod.uid = NewUid();
    pod.owner_kind = owner.resource->kind;
    pod.owner_name = owner.name;
    pod.owner_uid = owner.Uid();
    pod.template_hash = hash;
    pod.labels = pod_template.value("metadata", Json::object()).value("labels", Json::object());
    if (!hash.empty()) {
        pod.labels["pod-template-hash"] = hash;
    }
    pod.spec = pod_template.value("spec", Json::object());
    pod.demand = PodDemandOf(pod.spec);
    pod.created = now;
    pods[pod.ns + "/" + pod.name] = std::move(pod);
}

void KubernetesSim::State::TerminatePod(KubePod& pod, double now) {
    if (!pod.Terminating()) {
        pod.gone_at = now + config.timing.kill;
        pod.ready = false;
    }
}

void KubernetesSim::State::DeleteDependents(const KubeObject& owner, bool orphan, double now) {
    const std::string uid = owner.Uid();
    for (auto& [key, pod] : pods) {
        const bool in_namespace = owner.resource->kind == "Namespace" && pod.ns == owner.name;
        if (!in_namespace && (pod.owner_uid != uid || uid.empty())) {
            continue;
        }
        if (orphan) {
            pod.orphaned = true;
            pod.owner_uid.clear();
        } else {
            TerminatePod(pod, now);
        }
    }
    std::vector<std::string> doomed;
    for (auto& [key, object] : objects) {
        const bool in_namespace = owner.resource->kind == "Namespace" && object.ns == owner.name;
        bool owned = false;
        for (const auto& ref : object.body["metadata"].value("ownerReferences", Json::array())) {
            owned = owned || ref.value("uid", "") == uid;
        }
        if (!in_namespace && !owned) {
            continue;
        }
        if (orphan) {
            object.body["metadata"].erase("ownerReferences");
        } else {
            doomed.push_back(key);
        }
    }
    for (const auto& key : doomed) {
        const auto it = objects.find(key);
        if (it != objects.end()) {
            DeleteDependents(it->second, false, now);
            objects.erase(it);
        }
    }
}

bool KubernetesSim::State::HasDependents(const KubeObject& owner) const {
    const std::string uid = owner.Uid();
    const bool is_namespace = owner.resource->kind == "Namespace";
    for (const auto& [key, pod] : pods) {
        if ((is_namespace && pod.ns == owner.name) || (!uid.empty() && pod.owner_uid == uid)) {
            return true;
        }
    }
    for (const auto& [key, object] : objects) {
        if (is_namespace && object.ns == owner.name) {
            return true;
        }
        for (const auto& ref : object.body["metadata"].value("ownerReferences", Json::array())) {
            if (ref.value("uid", "") == uid) {
                return true;
            }
        }
    }
    return false;
}

void KubernetesSim::State::RemoveObject(const std::string& key) {
    objects.erase(key);
}

Json KubernetesSim::State::PodJson(const KubePod& pod, double now) const {
    Json metadata = {
        {"name", pod.name},
        {"namespace", pod.ns},
        {"uid", pod.uid},
        {"labels", pod.labels},
        {"creationTimestamp", KubeTime(pod.created)},
    };
    if (!pod.owner_uid.empty()) {
        const bool deployment = pod.owner_kind == "Deployment";
        metadata["ownerReferences"] = Json::array({{
            {"apiVersion", deployment ? "apps/v1" : "batch/v1"},
            {"kind", deployment ? "ReplicaSet" : "Job"},
            {"name", deployment ? pod.owner_name + "-" + pod.template_hash : pod.owner_name},
            {"uid", pod.owner_uid},
            {"controller", true},
            {"blockOwnerDeletion", true},
        }});
    }
    if (pod.Terminating()) {
        metadata["deletionTimestamp"] = KubeTime(pod.gone_at);
    }
    Json spec = pod.spec;
    if (!pod.node.empty()) {
        spec["nodeName"] = pod.node;
    }
    const bool scheduled = !pod.node.empty();
    Json conditions = Json::array();
    Json scheduled_condition = {
        {"type", "PodScheduled"},
        {"status", scheduled ? "True" : "False"},
        {"lastTransitionTime", KubeTime(pod.created)}};
    if (!scheduled && !pod.unschedulable.empty()) {
        scheduled_condition["reason"] = "Unschedulable";
        scheduled_condition["message"] = pod.unschedulable;
    }
    conditions.push_back(scheduled_condition);
    if (scheduled) {
        const std::string ready = pod.ready ? "True" : "False";
        conditions.push_back({{"type", "Initialized"}, {"status", "True"}});
        conditions.push_back({{"type", "ContainersReady"}, {"status", ready}});
        conditions.push_back({{"type", "Ready"}, {"status", ready}});
    }
    Json statuses = Json::array();
    for (const auto& c : pod.spec.value("containers", Json::array())) {
        Json state;
        if (pod.Finished()) {
            state = {
                {"terminated",
                 {{"exitCode", pod.exit_code},
                  {"reason", pod.exit_code == 0 ? "Completed" : "Error"},
                  {"finishedAt", KubeTime(pod.finish_at)}}}};
        } else if (!pod.waiting_reason.empty() || !scheduled || now < pod.start_at) {
            state = {{"waiting", {{"reason", pod.waiting_reason.empty() ? "ContainerCreating" : pod.waiting_reason}}}};
            if (!pod.waiting_message.empty()) {
                state["waiting"]["message"] = pod.waiting_message;
            }
        } else {
            state = {{"running", {{"startedAt", KubeTime(pod.start_at)}}}};
        }
        statuses.push_back(
            {{"name", c.value("name", "")},
             {"image", c.value("image", "")},
             {"ready", pod.ready},
             {"restartCount", pod.restarts},
             {"state", state}}
        );
    }
    Json status = {{"phase", pod.phase}, {"conditions", conditions}, {"qosClass", "Burstable"}};
    if (scheduled) {
        status["hostIP"] =
            "10.0.0." +
            std::to_string(
                10 + std::distance(
                         nodes.begin(),
                         std::find_if(nodes.begin(), nodes.end(), [&](const auto& n) { return n.name == pod.node; })
                     )
            );
        status["startTime"] = KubeTime(pod.created);
        status["containerStatuses"] = statuses;
    }
    if (!pod.pod_ip.empty()) {
        status["podIP"] = pod.pod_ip;
    }
    return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", metadata}, {"spec", spec}, {"status", status}};
}

Json KubernetesSim::Objects() const {
    Json out = Json::object();
    for (const auto& [key, object] : state_->objects) {
        std::string kind = object.resource->plural;
        Json entry = {{"name", object.ns.empty() ? object.name : object.ns + "/" + object.name}};
        if (object.Deleting()) {
            entry["deleting"] = true;
        }
        out[kind].push_back(entry);
    }
    Json pods = Json::array();
    for (const auto& [key, pod] : state_->pods) {
        pods.push_back(
            {{"name", key},
             {"phase", pod.phase},
             {"node", pod.node},
             {"terminating", pod.Terminating()},
             {"orphaned", pod.orphaned}}
        );
    }
    out["pods"] = pods;
    return out;
}

}  // namespace orch::sim
