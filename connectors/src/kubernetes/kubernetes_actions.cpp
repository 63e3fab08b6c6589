#include "kubernetes/kubernetes_actions.hpp"

#include "common/log.hpp"

#include <algorithm>
#include <charconv>
#include <optional>

namespace orch::connectors::kubernetes {
namespace {

// The annotation is the site's text, not ours to trust: a count no node could have is refused.
constexpr int kMaxStoppedReplicas = 10000;

// The Deployment object (of the handle's list) a pod named `pod` belongs to: its pods are named
// "<deployment>-<replicaset hash>-<suffix>"; the longest such name wins ("web" vs "web-api").
std::optional<Json> DeploymentOfPod(const Handle& handle, const std::string& pod) {
    std::optional<Json> best;
    for (const auto& object : handle.state.value("objects", Json::array())) {
        if (object.value("kind", "") != "Deployment") {
            continue;
        }
        const std::string name = object.value("name", "");
        const bool prefix = !name.empty() && pod.size() > name.size() && pod.compare(0, name.size(), name) == 0 &&
                            pod[name.size()] == '-';
        if (prefix && (!best || name.size() > best->value("name", "").size())) {
            best = object;
        }
    }
    return best;
}

}  // namespace

int StoppedReplicas(const Json& deployment) {
    if (deployment.value("spec", Json::object()).value("replicas", 1) != 0) {
        return 0;
    }
    const Json annotations = deployment.value("metadata", Json::object()).value("annotations", Json::object());
    const auto kept = annotations.is_object() ? annotations.find(kStoppedReplicasAnnotation) : annotations.end();
    if (kept == annotations.end() || !kept->is_string()) {
        return 0;
    }
    const std::string text = kept->get<std::string>();
    int count = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), count);
    if (ec != std::errc() || end != text.data() + text.size() || count < 0) {
        return 0;
    }
    return std::min(count, kMaxStoppedReplicas);
}

ConnectorResult<bool> StartStopDeployment(
    RestClient& rest, const Handle& handle, const std::string& physical_id, bool start
) {
    const auto object = DeploymentOfPod(handle, physical_id);
    if (!object) {
        return Failure{FailureKind::kUserError, "only the pods of a Kubernetes Deployment can be started or stopped"};
    }
    const std::string path = object->value("path", "");
    ORCH_CONNECTOR_TRY(RestResponse current, rest.Call("GET", path));
    if (!current.Ok()) {
        return rest.StatusFailure(current, "reading " + path);
    }
    ORCH_CONNECTOR_TRY(Json body, rest.ParseBody(current, "reading " + path));
    const int replicas = body.value("spec", Json::object()).value("replicas", 1);
    const int kept = StoppedReplicas(body);
    if ((start && kept == 0) || (!start && replicas == 0)) {
        return true;  // already running / stopped: the action's poll sees it at once
    }
    Json& annotations = body["metadata"]["annotations"];
    if (!annotations.is_object()) {
        annotations = Json::object();
    }
    if (start) {
        body["spec"]["replicas"] = kept;
        annotations.erase(kStoppedReplicasAnnotation);
    } else {
        body["spec"]["replicas"] = 0;
        annotations[kStoppedReplicasAnnotation] = std::to_string(replicas);
    }
    body.erase("status");
    // The PUT carries the resourceVersion read: a concurrent change answers 409, retried here.
    ORCH_CONNECTOR_TRY(RestResponse r, rest.Call("PUT", path, &body));
    if (r.status == 409) {
        return Failure{FailureKind::kRetryHere, path + " changed while being " + (start ? "started" : "stopped")};
    }
    if (!r.Ok()) {
        return rest.StatusFailure(r, (start ? "starting " : "stopping ") + path);
    }
    ORCH_LOG_INFO(
        std::string("Kubernetes Deployment ") + (start ? "started" : "stopped"),
        {{"path", path}, {"replicas", start ? kept : 0}, {"site", handle.target.site_id}}
    );
    return true;
}

}  // namespace orch::connectors::kubernetes
