// The REST surface of the simulated kube-apiserver: paths, create/get/list/replace/patch/delete,
// the scale subresource, defaults and Status errors.
#include "kube_model.hpp"
#include "sim/sim_clock.hpp"

#include <algorithm>
#include <sstream>

namespace orch::sim {
namespace {

struct KubePath {
    const KubeResource* resource = nullptr;
    std::string ns;
    std::string name;
    std::string sub;
};

std::vector<std::string> Segments(const std::string& path) {
    std::vector<std::string> out;
    std::istringstream in(path);
    for (std::string s; std::getline(in, s, '/');) {
        if (!s.empty()) {
            out.push_back(s);
        }
    }
    return out;
}

std::optional<KubePath> ParseKubePath(const std::string& path) {
    const auto segs = Segments(path);
    std::string group;
    std::string version;
    std::size_t i = 0;
    if (segs.size() >= 2 && segs[0] == "api") {
        version = segs[1];
        i = 2;
    } else if (segs.size() >= 3 && segs[0] == "apis") {
        group = segs[1];
        version = segs[2];
        i = 3;
    } else {
        return std::nullopt;
    }
    const std::vector<std::string> rest(segs.begin() + static_cast<long>(i), segs.end());
    KubePath out;
    if (!rest.empty() && rest[0] == "namespaces" && rest.size() >= 3) {
        out.resource = FindKubeResource(group, version, rest[2]);
        out.ns = rest[1];
        out.name = rest.size() > 3 ? rest[3] : "";
        out.sub = rest.size() > 4 ? rest[4] : "";
        return rest.size() > 5 || out.resource == nullptr ? std::nullopt : std::optional(out);
    }
    if (rest.empty() || rest.size() > 2) {
        return std::nullopt;
    }
    out.resource = FindKubeResource(group, version, rest[0]);
    out.name = rest.size() > 1 ? rest[1] : "";
    if (out.resource == nullptr || (!out.name.empty() && out.resource->namespaced)) {
        return std::nullopt;
    }
    return out;
}

SimResponse NotFound(const KubeResource& r, const std::string& name) {
    return KubeStatus(
        404,
        "NotFound",
        r.QualifiedName() + " \"" + name + "\" not found",
        {{"name", name}, {"group", r.group}, {"kind", r.plural}}
    );
}

}  // namespace

class KubeHandlers {
   public:
    KubeHandlers(KubernetesSim::State& state, double now) : s_(state), now_(now) {}
    SimResponse Route(const SimRequest& request);

   private:
    SimResponse List(const KubePath& p, const SimRequest& request);
    SimResponse Create(const KubePath& p, const SimRequest& request);
    SimResponse Get(const KubePath& p);
    SimResponse Replace(const KubePath& p, Json body, bool check_version);
    SimResponse Patch(const KubePath& p, const SimRequest& request);
    SimResponse Delete(const KubePath& p, const SimRequest& request);
    SimResponse Scale(const KubePath& p, const SimRequest& request);
    std::optional<SimResponse> CheckNamespace(const KubePath& p, const std::string& name) const;
    std::optional<SimResponse> AllocateNodePorts(Json& spec, const std::string& except_key);

    KubernetesSim::State& s_;
    double now_;
};

SimResponse KubeHandlers::Route(const SimRequest& request) {
    if (request.path == "/version") {
        return SimResponse::JsonBody(
            200,
            {{"major", "1"},
             {"minor", "20"},
             {"gitVersion", "v1.20.2"},
             {"platform", "linux/amd64"},
             {"simulator", "site-sim"}}
        );
    }
    if (request.path == "/healthz" || request.path == "/readyz") {
        return SimResponse::Text(200, "ok");
    }
    const auto p = ParseKubePath(request.path);
    if (!p) {
        return KubeStatus(404, "NotFound", "the server could not find the requested resource");
    }
    const std::string& m = request.method;
    if (p->name.empty()) {
        if (m == "GET") {
            return List(*p, request);
        }
        if (m == "POST") {
            return Create(*p, request);
        }
    } else if (!p->sub.empty()) {
        if (p->sub == "scale" && p->resource->kind == "Deployment") {
            return Scale(*p, request);
        }
        if (p->sub == "status" && m == "GET") {
            return Get(*p);
        }
        return KubeStatus(404, "NotFound", "the server could not find the requested resource");
    } else if (m == "GET") {
        return Get(*p);
    } else if (m == "PUT" && !p->resource->schema.empty()) {
        auto body = ParseJson(request.body);
        if (!body) {
            return KubeStatus(
                400, "BadRequest", "couldn't get version/kind; json parse error: " + body.error().message
            );
        }
        return Replace(*p, std::move(*body), true);
    } else if (m == "PATCH" && !p->resource->schema.empty()) {
        return Patch(*p, request);
    } else if (m == "DELETE") {
        return Delete(*p, request);
    }
    return KubeStatus(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
}

SimResponse KubeHandlers::List(const KubePath& p, const SimRequest& request) {
    const std::string selector = request.Query("labelSelector").value_or("");
    Json items = Json::array();
    const auto keep = [&](const std::string& ns, const Json& labels) -> std::optional<bool> {
        if (!p.ns.empty() && ns != p.ns) {
            return false;
        }
        return SelectorMatches(selector, labels);
    };
    if (p.resource->kind == "Pod" || p.resource->kind == "Event") {
        const bool pods = p.resource->kind == "Pod";
        for (const auto& [key, pod] : s_.pods) {
            if (!pods) {
                break;
            }
            const auto ok = keep(pod.ns, pod.labels);
            if (!ok) {
                return KubeStatus(400, "BadRequest", "unable to parse requirement: " + selector);
            }
            if (*ok) {
                items.push_back(s_.PodJson(pod, now_));
            }
        }
        for (const auto& event : s_.events) {
            if (!pods && (p.ns.empty() || event["metadata"]["namespace"] == p.ns)) {
                items.push_back(event);
            }
        }
    } else {
        for (const auto& [key, object] : s_.objects) {
            if (object.resource != p.resource) {
                continue;
            }
            const auto ok = keep(object.ns, object.body["metadata"].value("labels", Json::object()));
            if (!ok) {
                return KubeStatus(400, "BadRequest", "unable to parse requirement: " + selector);
            }
            if (*ok) {
                items.push_back(object.body);
            }
        }
    }
    return SimResponse::JsonBody(
        200,
        {{"kind", p.resource->kind + "List"},
         {"apiVersion", p.resource->ApiVersion()},
         {"metadata", {{"resourceVersion", std::to_string(s_.resource_version)}}},
         {"items", items}}
    );
}

std::optional<SimResponse> KubeHandlers::CheckNamespace(const KubePath& p, const std::string& name) const {
    if (!p.resource->namespaced) {
        return std::nullopt;
    }
    auto* ns = s_.Find("Namespace", "", p.ns);
    if (ns == nullptr) {
        return KubeStatus(
            404, "NotFound", "namespaces \"" + p.ns + "\" not found", {{"name", p.ns}, {"kind", "namespaces"}}
        );
    }
    if (ns->Deleting()) {
        return KubeStatus(
            403,
            "Forbidden",
            p.resource->QualifiedName() + " \"" + name + "\" is forbidden: unable to create new content in namespace " +
                p.ns + " because it is being terminated"
        );
    }
    return std::nullopt;
}

std::optional<SimResponse> KubeHandlers::AllocateNodePorts(Json& spec, const std::string& except_key) {
    const std::string type = spec.value("type", "ClusterIP");
    if ((type != "NodePort" && type != "LoadBalancer") || !spec.contains("ports")) {
        return std::nullopt;
    }
    std::set<int> used;
    for (const auto& [key, object] : s_.objects) {
        if (key != except_key && object.resource->kind == "Service") {
            for (const auto& port : object.body["spec"].value("ports", Json::array())) {
                used.insert(port.value("nodePort", 0));
            }
        }
    }
    for (std::size_t i = 0; i < spec["ports"].size(); ++i) {
        auto& port = spec["ports"][i];
        if (port.contains("nodePort")) {
            if (used.count(port["nodePort"].get<int>()) != 0) {
                return KubeStatus(
                    422,
                    "Invalid",
                    "Service is invalid: spec.ports[" + std::to_string(i) +
                        "].nodePort: Invalid value: " + port["nodePort"].dump() + ": provided port is already allocated"
                );
            }
            used.insert(port["nodePort"].get<int>());
            continue;
        }
        while (used.count(s_.next_node_port) != 0) {
            ++s_.next_node_port;
        }
        port["nodePort"] = s_.next_node_port;
        used.insert(s_.next_node_port++);
    }
    return std::nullopt;
}

SimResponse KubeHandlers::Create(const KubePath& p, const SimRequest& request) {
    if (p.resource->schema.empty()) {
        return KubeStatus(405, "MethodNotAllowed", "site-sim does not accept direct creation of " + p.resource->plural);
    }
    auto body = ParseJson(request.body);
    if (!body) {
        return KubeStatus(400, "BadRequest", "couldn't get version/kind; json parse error: " + body.error().message);
    }
    if (auto invalid = ValidateKubeObject(s_, *p.resource, *body)) {
        return *invalid;
    }
    Json& metadata = (*body)["metadata"];
    const std::string name = metadata["name"].get<std::string>();
    if (p.resource->namespaced && metadata.contains("namespace") && metadata["namespace"] != p.ns) {
        return KubeStatus(
            400, "BadRequest", "the namespace of the provided object does not match the namespace sent on the request"
        );
    }
    if (auto problem = CheckNamespace(p, name)) {
        return *problem;
    }
    const std::string key = KubernetesSim::State::Key(p.resource->kind, p.ns, name);
    if (s_.objects.count(key) != 0) {
        return KubeStatus(
            409,
            "AlreadyExists",
            p.resource->QualifiedName() + " \"" + name + "\" already exists",
            {{"name", name}, {"group", p.resource->group}, {"kind", p.resource->plural}}
        );
    }
    if (s_.objects.size() >= s_.config.max_objects) {
        return KubeStatus(403, "Forbidden", "site-sim object limit reached");
    }
    if (p.resource->kind == "Service") {
        if (auto problem = AllocateNodePorts((*body)["spec"], key)) {
            return *problem;
        }
    }
    if (p.resource->namespaced) {
        metadata["namespace"] = p.ns;
    }
    metadata["uid"] = s_.NewUid();
    metadata["creationTimestamp"] = KubeTime(now_);
    if (p.resource->kind == "Deployment" || p.resource->kind == "Job" || p.resource->kind == "CronJob" ||
        p.resource->kind == "HelmRelease" || p.resource->kind == "HelmRepository") {
        metadata["generation"] = 1;
    }
    ApplyKubeDefaults(s_, *p.resource, *body);
    KubeObject object;
    object.resource = p.resource;
    object.ns = p.ns;
    object.name = name;
    object.body = std::move(*body);
    object.last_progress = now_;
    object.cron_checked = now_;
    if (!object.body.contains("status")) {
        object.body["status"] = Json::object();
    }
    s_.Touch(object);
    auto& stored = s_.objects[key] = std::move(object);
    return SimResponse::JsonBody(201, stored.body);
}

SimResponse KubeHandlers::Get(const KubePath& p) {
    if (p.resource->kind == "Pod") {
        const auto it = s_.pods.find(p.ns + "/" + p.name);
        return it == s_.pods.end() ? NotFound(*p.resource, p.name)
                                   : SimResponse::JsonBody(200, s_.PodJson(it->second, now_));
    }
    const auto* object = s_.Find(p.resource->kind, p.ns, p.name);
    return object == nullptr ? NotFound(*p.resource, p.name) : SimResponse::JsonBody(200, object->body);
}

SimResponse KubeHandlers::Replace(const KubePath& p, Json body, bool check_version) {
    auto* existing = s_.Find(p.resource->kind, p.ns, p.name);
    if (existing == nullptr) {
        return NotFound(*p.resource, p.name);
    }
    if (body.is_object() && body.contains("metadata") && body["metadata"].value("name", p.name) != p.name) {
        return KubeStatus(
            400,
            "BadRequest",
            "the name of the object (" + body["metadata"].value("name", "") + ") does not match the name on the URL (" +
                p.name + ")"
        );
    }
    const Json& old_meta = existing->body["metadata"];
    if (check_version && body.is_object() && body.contains("metadata") &&
        body["metadata"].contains("resourceVersion") &&
        body["metadata"]["resourceVersion"] != old_meta["resourceVersion"]) {
        return KubeStatus(
            409,
            "Conflict",
            "Operation cannot be fulfilled on " + p.resource->QualifiedName() + " \"" + p.name +
                "\": the object has been modified; please apply your changes to the latest version and try again"
        );
    }
    if (p.resource->kind == "Job" && body.is_object() && body.contains("spec")) {
        // The generated selector and labels are part of the stored object, not of the user's intent.
        body["spec"].erase("selector");
        if (body["spec"].contains("template") && body["spec"]["template"].contains("metadata")) {
            body["spec"]["template"]["metadata"]["labels"].erase("controller-uid");
            body["spec"]["template"]["metadata"]["labels"].erase("job-name");
        }
    }
    body.erase("status");
    if (auto invalid = ValidateKubeObject(s_, *p.resource, body)) {
        return *invalid;
    }
    for (const char* field :
         {"uid", "creationTimestamp", "generation", "namespace", "deletionTimestamp", "finalizers"}) {
        if (old_meta.contains(field)) {
            body["metadata"][field] = old_meta[field];
        }
    }
    ApplyKubeDefaults(s_, *p.resource, body);
    if (p.resource->kind == "Job" && body["spec"]["template"] != existing->body["spec"]["template"]) {
        return KubeStatus(
            422,
            "Invalid",
            "Job.batch \"" + p.name + "\" is invalid: spec.template: Invalid value: ...: field is immutable"
        );
    }
    if (p.resource->kind == "Service") {
        body["spec"]["clusterIP"] = existing->body["spec"].value("clusterIP", "");
        if (auto problem = AllocateNodePorts(body["spec"], KubernetesSim::State::Key("Service", p.ns, p.name))) {
            return *problem;
        }
    }
    if (body.value("spec", Json::object()) != existing->body.value("spec", Json::object()) &&
        old_meta.contains("generation")) {
        body["metadata"]["generation"] = old_meta["generation"].get<int>() + 1;
        existing->last_progress = now_;
    }
    body["status"] = existing->body.value("status", Json::object());
    existing->body = std::move(body);
    s_.Touch(*existing);
    return SimResponse::JsonBody(200, existing->body);
}

SimResponse KubeHandlers::Patch(const KubePath& p, const SimRequest& request) {
    const auto* existing = s_.Find(p.resource->kind, p.ns, p.name);
    if (existing == nullptr) {
        return NotFound(*p.resource, p.name);
    }
    const std::string type = request.Header("Content-Type").substr(0, request.Header("Content-Type").find(';'));
    auto patch = ParseJson(request.body);
    if (!patch) {
        return KubeStatus(400, "BadRequest", "error decoding patch: " + patch.error().message);
    }
    Json merged = existing->body;
    if (type == "application/merge-patch+json" || type == "application/strategic-merge-patch+json") {
        // Strategic merge is simulated as a JSON merge patch (lists are replaced, not merged by key).
        merged.merge_patch(*patch);
    } else if (type == "application/json-patch+json") {
        try {
            merged = merged.patch(*patch);
        } catch (const Json::exception& e) {
            return KubeStatus(
                422,
                "Invalid",
                std::string("the server rejected our request due to an error in our request: ") + e.what()
            );
        }
    } else {
        return KubeStatus(
            415,
            "UnsupportedMediaType",
            "the body of the request was in an unknown format - accepted media types include: "
            "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
        );
    }
    return Replace(p, std::move(merged), false);
}

SimResponse KubeHandlers::Scale(const KubePath& p, const SimRequest& request) {
    auto* deployment = s_.Find("Deployment", p.ns, p.name);
    if (deployment == nullptr) {
        return NotFound(*p.resource, p.name);
    }
    if (request.method == "PUT" || request.method == "PATCH") {
        auto body = ParseJson(request.body);
        if (!body || !body->is_object() || !body->contains("spec") || !(*body)["spec"].contains("replicas") ||
            !(*body)["spec"]["replicas"].is_number_integer() || (*body)["spec"]["replicas"].get<int>() < 0) {
            return KubeStatus(
                422,
                "Invalid",
                "Scale.autoscaling \"" + p.name +
                    "\" is invalid: spec.replicas: Invalid value: must be a non-negative integer"
            );
        }
        if (deployment->body["spec"]["replicas"] != (*body)["spec"]["replicas"]) {
            deployment->body["spec"]["replicas"] = (*body)["spec"]["replicas"];
            deployment->body["metadata"]["generation"] = deployment->body["metadata"].value("generation", 1) + 1;
            deployment->last_progress = now_;
            s_.Touch(*deployment);
        }
    } else if (request.method != "GET") {
        return KubeStatus(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
    }
    const Json& spec = deployment->body["spec"];
    std::string selector;
    const Json match_labels = spec["selector"].value("matchLabels", Json::object());
    for (const auto& [k, v] : match_labels.items()) {
        selector += (selector.empty() ? "" : ",") + k + "=" + v.get<std::string>();
    }
    return SimResponse::JsonBody(
        200,
        {
            {"kind", "Scale"},
            {"apiVersion", "autoscaling/v1"},
            {"metadata", {{"name", p.name}, {"namespace", p.ns}, {"uid", deployment->Uid()}}},
            {"spec", {{"replicas", spec["replicas"]}}},
            {"status", {{"replicas", deployment->body["status"].value("replicas", 0)}, {"selector", selector}}},
        }
    );
}

SimResponse KubeHandlers::Delete(const KubePath& p, const SimRequest& request) {
    std::string policy = request.Query("propagationPolicy").value_or("");
    if (!request.body.empty()) {
        auto options = ParseJson(request.body);
        if (!options || !options->is_object()) {
            return KubeStatus(400, "BadRequest", "DeleteOptions must be a JSON object");
        }
        policy = options->value("propagationPolicy", policy);
        if (options->value("orphanDependents", false)) {
            policy = "Orphan";
        }
    }
    if (!policy.empty() && policy != "Foreground" && policy != "Background" && policy != "Orphan") {
        return KubeStatus(400, "BadRequest", "propagationPolicy: Unsupported value: \"" + policy + "\"");
    }
    if (p.resource->kind == "Pod") {
        const auto it = s_.pods.find(p.ns + "/" + p.name);
        if (it == s_.pods.end()) {
            return NotFound(*p.resource, p.name);
        }
        s_.TerminatePod(it->second, now_);
        return SimResponse::JsonBody(200, s_.PodJson(it->second, now_));
    }
    auto* object = s_.Find(p.resource->kind, p.ns, p.name);
    if (object == nullptr) {
        return NotFound(*p.resource, p.name);
    }
    const std::string key = KubernetesSim::State::Key(p.resource->kind, p.ns, p.name);
    if (policy.empty()) {
        // batch/v1 Jobs and batch/v1beta1 CronJobs default to orphaning their children.
        policy = p.resource->group == "batch" ? "Orphan" : "Background";
    }
    if (p.resource->kind == "Namespace" || policy == "Foreground") {
        if (!object->Deleting()) {
            object->deleted_at = now_;
            object->body["metadata"]["deletionTimestamp"] = KubeTime(now_);
            if (p.resource->kind == "Namespace") {
                object->body["status"]["phase"] = "Terminating";
            } else {
                object->body["metadata"]["finalizers"] = Json::array({"foregroundDeletion"});
                s_.DeleteDependents(*object, false, now_);
            }
            s_.Touch(*object);
        }
        return SimResponse::JsonBody(200, object->body);
    }
    s_.DeleteDependents(*object, policy == "Orphan", now_);
    Json details = {
        {"name", p.name}, {"group", p.resource->group}, {"kind", p.resource->plural}, {"uid", object->Uid()}};
    s_.RemoveObject(key);
    return SimResponse::JsonBody(
        200,
        {{"kind", "Status"},
         {"apiVersion", "v1"},
         {"metadata", Json::object()},
         {"status", "Success"},
         {"details", details}}
    );
}

KubernetesSim::KubernetesSim(const SimConfig& config, const SchemaSet& schemas)
    : state_(std::make_unique<State>(config, schemas)) {}

KubernetesSim::~KubernetesSim() = default;

SimResponse KubernetesSim::Handle(const SimRequest& request, double now) {
    KubeHandlers handlers(*state_, now);
    return handlers.Route(request);
}

void KubernetesSim::SetNodes(const std::vector<KubeNodeSpec>& nodes) {
    state_->nodes = nodes;
}

}  // namespace orch::sim
