#include "kube_checks.hpp"

#include "fake_kubelet.hpp"
#include "kube_rig.hpp"

#include <common/uuid.hpp>

#include <catch2/catch.hpp>

#include <chrono>

namespace orch::test::kube {
namespace {

using namespace std::chrono_literals;

bool IsZero(const Json& value) {
    return value == false || value == 0 || value == "" || (value.is_structured() && value.empty());
}

void CollectMissing(const Json& sent, const Json& stored, const std::string& path, std::vector<std::string>& out) {
    if (sent.is_object()) {
        for (const auto& [key, value] : sent.items()) {
            if (!stored.is_object() || !stored.contains(key)) {
                if (!IsZero(value)) {
                    out.push_back(path + "/" + key);
                }
            } else {
                CollectMissing(value, stored[key], path + "/" + key, out);
            }
        }
    } else if (sent.is_array()) {
        if (!stored.is_array() || stored.size() != sent.size()) {
            out.push_back(path + " (array)");
            return;
        }
        for (std::size_t i = 0; i < sent.size(); ++i) {
            CollectMissing(sent[i], stored[i], path + "/" + std::to_string(i), out);
        }
    } else if (sent != stored && !(sent.is_number() && stored.is_string() && sent.dump() == stored.get<std::string>())) {
        out.push_back(path + ": sent " + sent.dump() + ", stored " + stored.dump());
    }
}

}  // namespace

Deployment::Deployment(std::vector<tosca::NodeSpec> nodes, connectors::SiteTarget target) {
    kubelet::EnsureNodes();
    spec.kind = tosca::DeploymentKind::kKubernetes;
    spec.nodes = std::move(nodes);
    request.deployment_id = RandomUuid();
    request.spec = &spec;
    request.target = std::move(target);
}

Deployment::Deployment(tosca::DeploymentSpec built, connectors::SiteTarget target) : spec(std::move(built)) {
    kubelet::EnsureNodes();
    request.deployment_id = RandomUuid();
    request.spec = &spec;
    request.target = std::move(target);
}

Deployment::~Deployment() {
    try {
        kubelet::RemoveNamespace(connectors::KubernetesNamespace(request.deployment_id, request.target));
    } catch (const std::exception&) {
        // The control plane is gone already; the fixture's stop removes everything anyway.
    }
}

connectors::Handle MustCreate(connectors::KubernetesConnector& connector, const connectors::DeployRequest& request) {
    auto created = connector.Create(request);
    if (auto* failure = std::get_if<connectors::Failure>(&created)) {
        FAIL("Create failed: " << failure->message);
    }
    return std::get<connectors::Handle>(created);
}

connectors::Handle MustUpdate(
    connectors::KubernetesConnector& connector,
    const connectors::Handle& handle,
    const connectors::DeployRequest& request
) {
    auto updated = connector.Update(handle, request);
    if (auto* failure = std::get_if<connectors::Failure>(&updated)) {
        FAIL("Update failed: " << failure->message);
    }
    return std::get<connectors::Handle>(updated);
}

bool Settled(const connectors::Observation& o) {
    return o.phase != connectors::Phase::kInProgress;
}

void DeleteAndWaitGone(
    connectors::KubernetesConnector& connector, const connectors::Handle& handle, const tosca::DeploymentSpec& spec
) {
    auto deleted = connector.Delete(handle, false);
    if (auto* failure = std::get_if<connectors::Failure>(&deleted)) {
        FAIL("Delete failed: " << failure->message);
    }
    const connectors::Observation gone = PollUntil(
        connector,
        handle,
        spec,
        [](const connectors::Observation& o) { return o.phase == connectors::Phase::kGone; },
        180s
    );
    INFO(gone.reason);
    CHECK(gone.phase == connectors::Phase::kGone);
    CHECK(AdminCall("GET", "/api/v1/namespaces/" + handle.physical_id).status == 404);
}

Json PodOf(const std::string& ns, const std::string& app) {
    const auto list =
        AdminCall("GET", "/api/v1/namespaces/" + ns + "/pods?labelSelector=app.kubernetes.io/name%3D" + app);
    REQUIRE(list.status == 200);
    REQUIRE(list.body["items"].size() >= 1);
    return list.body["items"][0];
}

std::string ConditionStatus(const Json& object, const std::string& type) {
    for (const auto& c : object["status"].value("conditions", Json::array())) {
        if (c.value("type", "") == type) {
            return c.value("status", "");
        }
    }
    return "";
}

std::vector<std::string> Dropped(const Json& sent, const Json& stored, const std::string& path) {
    std::vector<std::string> out;
    CollectMissing(sent, stored, path, out);
    return out;
}

void CheckNothingDropped(const connectors::DeployRequest& request) {
    const auto manifests = connectors::BuildKubernetesManifests(request);
    REQUIRE(std::holds_alternative<std::vector<connectors::KubeManifest>>(manifests));
    for (const auto& m : std::get<std::vector<connectors::KubeManifest>>(manifests)) {
        INFO(m.kind << " " << m.name);
        const auto stored = AdminCall("GET", m.collection + "/" + m.name);
        REQUIRE(stored.status == 200);
        CHECK(Dropped(m.body, stored.body, m.kind) == std::vector<std::string>{});
    }
}

int CountStarted(const connectors::Observation& obs, const std::string& node) {
    int n = 0;
    for (const auto& i : obs.instances) {
        n += i.node == node && i.state == connectors::InstanceStatus::kStarted ? 1 : 0;
    }
    return n;
}

}  // namespace orch::test::kube
