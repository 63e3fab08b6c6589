#include "connectors/kubernetes_connector.hpp"

#include "common/log.hpp"
#include "connectors/workload.hpp"
#include "kubernetes/kubernetes_actions.hpp"
#include "kubernetes/kubernetes_poll.hpp"

#include <algorithm>
#include <functional>
#include <set>

namespace orch::connectors {
namespace {

const Json& ForegroundDelete() {
    static const Json kBody = {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}, {"propagationPolicy", "Foreground"}};
    return kBody;
}

// A Terminating namespace left by an earlier attempt refuses new content until it is gone.
bool Terminating(const RestResponse& r) {
    return r.status == 403 && r.body.find("being terminated") != std::string::npos;
}

// The objects created, with a fingerprint of each Deployment's pod template: an update that keeps
// it is a scale (`scale`: Poll judges an Unschedulable pod at once, nothing old will make room).
Json ObjectList(const std::vector<KubeManifest>& manifests, const Json& previous = Json::array()) {
    Json out = Json::array();
    for (const auto& m : manifests) {
        Json entry = {{"node", m.node}, {"kind", m.kind}, {"name", m.name}, {"path", m.collection + "/" + m.name}};
        if (m.kind == "Deployment") {
            const std::string fingerprint =
                std::to_string(std::hash<std::string>{}(m.body["spec"].value("template", Json::object()).dump()));
            entry["template"] = fingerprint;
            for (const auto& old : previous) {
                if (old.value("path", "") == entry["path"] && old.value("template", "") == fingerprint) {
                    entry["scale"] = true;
                }
            }
        }
        out.push_back(std::move(entry));
    }
    return out;
}

// A replacement Service keeps its cluster IP and the node ports already handed out.
void KeepAllocations(const Json& existing, Json& service) {
    const Json& old_spec = existing["spec"];
    service["spec"]["clusterIP"] = old_spec.value("clusterIP", "");
    for (auto& port : service["spec"]["ports"]) {
        for (const auto& old : old_spec.value("ports", Json::array())) {
            if (old.value("name", "") == port.value("name", "") && old.contains("nodePort")) {
                port["nodePort"] = old["nodePort"];
            }
        }
    }
}

// True when every Deployment kept its pod template (ObjectList marked it `scale`): only then is
// putting the old replica counts back a rollback of the whole update.
bool OnlyScaled(const Json& objects) {
    return std::all_of(objects.begin(), objects.end(), [](const Json& o) {
        return o.value("kind", "") != "Deployment" || o.value("scale", false);
    });
}

// Sets one Deployment's replicas to `replicas`, keeping everything else as the site has it.
ConnectorResult<bool> SetReplicas(RestClient& rest, const std::string& path, int replicas) {
    ORCH_CONNECTOR_TRY(RestResponse current, rest.Call("GET", path));
    if (!current.Ok()) {
        return rest.StatusFailure(current, "reading " + path);
    }
    ORCH_CONNECTOR_TRY(Json body, rest.ParseBody(current, "reading " + path));
    body["spec"]["replicas"] = replicas;
    body.erase("status");
    ORCH_CONNECTOR_TRY(RestResponse r, rest.Call("PUT", path, &body));
    if (r.status == 409) {
        return Failure{FailureKind::kRetryHere, path + " changed while being scaled back; retrying"};
    }
    if (!r.Ok()) {
        return rest.StatusFailure(r, "scaling back " + path);
    }
    return true;
}

}  // namespace

KubernetesConnector::KubernetesConnector(SiteClientFactory& clients, CallOptions options)
    : clients_(clients), options_(options) {}

ConnectorResult<RestClient> KubernetesConnector::ClientFor(const SiteTarget& target) {
    ORCH_CONNECTOR_TRY(std::shared_ptr<http::Client> client, clients_.ClientFor(target));
    return RestClient(
        std::move(client), target.endpoint, AuthHeaders(target.credentials), options_, "Kubernetes " + target.site_id
    );
}

ConnectorResult<Handle> KubernetesConnector::Create(const DeployRequest& request) {
    return GuardJson("Kubernetes site " + request.target.site_id, [&]() -> ConnectorResult<Handle> {
        ORCH_CONNECTOR_TRY(std::vector<KubeManifest> manifests, BuildKubernetesManifests(request));
        ORCH_CONNECTOR_TRY(RestClient rest, ClientFor(request.target));
        for (const auto& m : manifests) {
            ORCH_CONNECTOR_TRY(RestResponse r, rest.Call("POST", m.collection, &m.body));
            if (Terminating(r)) {
                return Failure{
                    FailureKind::kRetryHere,
                    "namespace " + manifests.front().name + " is still terminating from an earlier attempt"};
            }
            if (!r.Ok() && r.status != 409) {  // 409 AlreadyExists: created by an earlier run of this create
                return rest.StatusFailure(r, "creating " + m.kind + " " + m.name);
            }
        }
        Handle handle;
        handle.deployment_id = request.deployment_id;
        handle.physical_id = manifests.front().name;
        handle.target = request.target;
        handle.state = {{"namespace", manifests.front().name}, {"objects", ObjectList(manifests)}};
        ORCH_LOG_INFO(
            "Kubernetes objects created", {{"namespace", handle.physical_id}, {"site", request.target.site_id}}
        );
        return handle;
    });
}

ConnectorResult<Observation> KubernetesConnector::Poll(const Handle& handle, const tosca::DeploymentSpec& spec) {
    return GuardJson("Kubernetes site " + handle.target.site_id, [&]() -> ConnectorResult<Observation> {
        DeployRequest request;
        request.deployment_id = handle.deployment_id;
        request.spec = &spec;
        request.target = handle.target;
        ORCH_CONNECTOR_TRY(std::vector<KubeManifest> manifests, BuildKubernetesManifests(request));
        ORCH_CONNECTOR_TRY(RestClient rest, ClientFor(handle.target));
        return kubernetes::PollNamespace(rest, handle, spec, manifests);
    });
}

ConnectorResult<Handle> KubernetesConnector::Update(const Handle& handle, const DeployRequest& request) {
    return GuardJson("Kubernetes site " + handle.target.site_id, [&]() -> ConnectorResult<Handle> {
        ORCH_CONNECTOR_TRY(std::vector<KubeManifest> manifests, BuildKubernetesManifests(request));
        ORCH_CONNECTOR_TRY(RestClient rest, ClientFor(handle.target));
        const std::string ns = manifests.front().name;
        std::set<std::string> wanted;
        // Each Deployment scaled up, with the replica count it had: what RollBack puts back.
        Json grown = Json::array();
        bool only_scales = true;
        for (const auto& m : manifests) {
            wanted.insert(m.collection + "/" + m.name);
            ORCH_CONNECTOR_TRY(RestResponse current, rest.Call("GET", m.collection + "/" + m.name));
            if (current.status == 404) {
                only_scales = false;
                ORCH_CONNECTOR_TRY(RestResponse r, rest.Call("POST", m.collection, &m.body));
                if (!r.Ok() && r.status != 409) {
                    return rest.StatusFailure(r, "creating " + m.kind + " " + m.name);
                }
                continue;
            }
            if (!current.Ok()) {
                return rest.StatusFailure(current, "reading " + m.kind + " " + m.name);
            }
            if (m.kind == "Namespace" || m.kind == "Job" || m.kind == "PersistentVolumeClaim") {
                continue;  // nothing to change / a Job's template and a claim's spec are immutable
            }
            ORCH_CONNECTOR_TRY(Json existing, rest.ParseBody(current, "reading " + m.kind + " " + m.name));
            if (m.kind == "Deployment") {
                const int before = existing["spec"].value("replicas", 1);
                if (m.body["spec"].value("replicas", 1) > before) {
                    grown.push_back({{"node", m.node}, {"path", m.collection + "/" + m.name}, {"replicas", before}});
                }
            }
            Json body = m.body;
            body["metadata"]["resourceVersion"] = existing["metadata"].value("resourceVersion", "");
            if (m.kind == "Service") {
                KeepAllocations(existing, body);
            }
            ORCH_CONNECTOR_TRY(RestResponse r, rest.Call("PUT", m.collection + "/" + m.name, &body));
            if (r.status == 409) {
                return Failure{
                    FailureKind::kRetryHere, m.kind + " " + m.name + " changed while being updated; retrying"};
            }
            if (!r.Ok()) {
                return rest.StatusFailure(r, "updating " + m.kind + " " + m.name);
            }
        }
        // Nodes removed from the template lose their objects.
        for (const auto& old : handle.state.value("objects", Json::array())) {
            const std::string path = old.value("path", "");
            if (path.empty() || wanted.count(path) != 0) {
                continue;
            }
            only_scales = false;
            ORCH_CONNECTOR_TRY(RestResponse r, rest.Call("DELETE", path, &ForegroundDelete()));
            if (!r.Ok() && r.status != 404) {
                return rest.StatusFailure(r, "deleting " + path);
            }
        }
        Handle updated = handle;
        Json objects = ObjectList(manifests, handle.state.value("objects", Json::array()));
        updated.state = {{"namespace", ns}, {"objects", objects}};
        if (only_scales && !grown.empty() && OnlyScaled(objects)) {
            updated.state["rollback"] = std::move(grown);
        }
        return updated;
    });
}

ConnectorResult<Deletion> KubernetesConnector::Delete(const Handle& handle, bool force) {
    return GuardJson("Kubernetes site " + handle.target.site_id, [&]() -> ConnectorResult<Deletion> {
        ORCH_CONNECTOR_TRY(RestClient rest, ClientFor(handle.target));
        const std::string ns =
            handle.physical_id.empty() ? KubernetesNamespace(handle.deployment_id, handle.target) : handle.physical_id;
        // Workloads first, in the foreground, so their pods are gone before the namespace goes.
        std::vector<std::string> paths;
        for (const auto& object : handle.state.value("objects", Json::array())) {
            if (object.value("kind", "") != "Namespace" && !object.value("path", "").empty()) {
                paths.push_back(object.value("path", ""));
            }
        }
        paths.push_back("/api/v1/namespaces/" + ns);
        bool all_gone = true;
        for (const auto& path : paths) {
            ORCH_CONNECTOR_TRY(RestResponse r, rest.Call("DELETE", path, &ForegroundDelete()));
            if (r.status == 404) {
                continue;
            }
            all_gone = false;
            if (r.Ok()) {
                continue;
            }
            Failure failure = rest.StatusFailure(r, "deleting " + path);
            if (!force || failure.kind == FailureKind::kRetryHere) {
                return failure;
            }
            ORCH_LOG_WARN("Kubernetes deletion failed; forced", {{"path", path}, {"error", failure.message}});
        }
        if (all_gone) {
            return Deletion::kComplete;
        }
        ORCH_LOG_INFO("Kubernetes namespace deletion started", {{"namespace", ns}, {"site", handle.target.site_id}});
        return Deletion::kInProgress;
    });
}

ConnectorResult<Restored> KubernetesConnector::RollBack(const Handle& handle) {
    return GuardJson("Kubernetes site " + handle.target.site_id, [&]() -> ConnectorResult<Restored> {
        const Json grown = handle.state.value("rollback", Json::array());
        if (grown.empty()) {
            return Failure{
                FailureKind::kUserError, "the update changed more than replica counts; nothing was rolled back"};
        }
        ORCH_CONNECTOR_TRY(RestClient rest, ClientFor(handle.target));
        Restored restored;
        for (const auto& entry : grown) {
            const int replicas = entry.value("replicas", 1);
            ORCH_CONNECTOR_TRY(bool done, SetReplicas(rest, entry.value("path", ""), replicas));
            (void)done;
            restored.counts[entry.value("node", "")] = replicas;
        }
        restored.handle = handle;
        restored.handle.state.erase("rollback");  // done: a later failure must not repeat it
        ORCH_LOG_INFO(
            "Kubernetes scale rolled back", {{"namespace", handle.physical_id}, {"site", handle.target.site_id}}
        );
        return restored;
    });
}

ConnectorResult<bool> KubernetesConnector::Act(
    const Handle& handle, const std::string& physical_id, const std::string& action
) {
    if (action != "start" && action != "stop") {
        return Failure{FailureKind::kUserError, "Kubernetes workloads do not support the action '" + action + "'"};
    }
    return GuardJson("Kubernetes site " + handle.target.site_id, [&]() -> ConnectorResult<bool> {
        ORCH_CONNECTOR_TRY(RestClient rest, ClientFor(handle.target));
        return kubernetes::StartStopDeployment(rest, handle, physical_id, action == "start");
    });
}

ConnectorResult<std::string> KubernetesConnector::SiteVersion(const SiteTarget& target) {
    return GuardJson("Kubernetes site " + target.site_id, [&]() -> ConnectorResult<std::string> {
        ORCH_CONNECTOR_TRY(RestClient rest, ClientFor(target));
        ORCH_CONNECTOR_TRY(RestResponse r, rest.Call("GET", "/version"));
        if (!r.Ok()) {
            return rest.StatusFailure(r, "reading the Kubernetes version");
        }
        ORCH_CONNECTOR_TRY(Json info, rest.ParseBody(r, "Kubernetes version"));
        return "Kubernetes " + BoundedVersion(info.value("gitVersion", std::string(kUnknownSiteVersion)));
    });
}

}  // namespace orch::connectors
