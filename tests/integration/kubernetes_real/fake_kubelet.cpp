#include "fake_kubelet.hpp"

#include "kube_rig.hpp"

#include <ctime>
#include <functional>
#include <mutex>
#include <stdexcept>

namespace orch::test::kube::kubelet {
namespace {

constexpr char kStrategicMerge[] = "application/strategic-merge-patch+json";

std::string Now() {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

void Expect(const Answer& answer, std::initializer_list<int> statuses, const std::string& what) {
    for (int s : statuses) {
        if (answer.status == s) {
            return;
        }
    }
    throw std::runtime_error(
        "fake kubelet: " + what + ": HTTP " + std::to_string(answer.status) + " " + answer.body.dump()
    );
}

void RegisterNode(const std::string& name, bool gpu) {
    Json labels = {{"kubernetes.io/hostname", name}, {"kubernetes.io/os", "linux"}};
    Json capacity = {{"cpu", "16"}, {"memory", "64Gi"}, {"pods", "110"}, {"ephemeral-storage", "100Gi"}};
    Json taints = nullptr;
    if (gpu) {
        labels["nvidia.com/gpu.product"] = kGpuProduct;
        labels["nvidia.com/gpu.count"] = std::to_string(kGpus);
        capacity["nvidia.com/gpu"] = std::to_string(kGpus);
        taints = Json::array({{{"key", "nvidia.com/gpu"}, {"value", "present"}, {"effect", "NoSchedule"}}});
    }
    const Json node = {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", name}, {"labels", labels}}}};
    Expect(AdminCall("POST", "/api/v1/nodes", &node), {201, 409}, "registering node " + name);
    // Admission taints a new node not-ready until its kubelet says otherwise; we are its kubelet.
    const Json spec = {{"spec", {{"taints", taints}}}};
    Expect(
        AdminCall("PATCH", "/api/v1/nodes/" + name, &spec, "application/merge-patch+json"), {200}, "untainting " + name
    );
    const std::string now = Now();
    const Json status = {
        {"status",
         {{"capacity", capacity},
          {"allocatable", capacity},
          {"addresses",
           Json::array({{{"type", "InternalIP"}, {"address", "127.0.0.1"}}, {{"type", "Hostname"}, {"address", name}}}
           )},
          {"conditions",
           Json::array(
               {{{"type", "Ready"},
                 {"status", "True"},
                 {"reason", "KubeletReady"},
                 {"message", "fake kubelet of the integration tests"},
                 {"lastHeartbeatTime", now},
                 {"lastTransitionTime", now}}}
           )}}}};
    Expect(
        AdminCall("PATCH", "/api/v1/nodes/" + name + "/status", &status, kStrategicMerge),
        {200},
        "reporting the status of " + name
    );
}

int ExitCodeOf(const Json& container) {
    for (const auto& env : container.value("env", Json::array())) {
        if (env.value("name", "") == kExitCodeVariable) {
            return std::stoi(env.value("value", "0"));
        }
    }
    return 0;
}

// The status a kubelet would report once the pod's containers started (or ran to completion).
Json StartedStatus(const Json& pod) {
    const std::string now = Now();
    const bool long_running = pod["spec"].value("restartPolicy", "Always") == "Always";
    int exit_code = 0;
    Json containers = Json::array();
    for (const auto& c : pod["spec"]["containers"]) {
        const int code = ExitCodeOf(c);
        exit_code = exit_code != 0 ? exit_code : code;
        Json state = long_running ? Json{{"running", {{"startedAt", now}}}}
                                  : Json{
                                        {"terminated",
                                         {{"exitCode", code},
                                          {"reason", code == 0 ? "Completed" : "Error"},
                                          {"startedAt", now},
                                          {"finishedAt", now}}}};
        containers.push_back(
            {{"name", c.value("name", "")},
             {"image", c.value("image", "")},
             {"imageID", ""},
             {"ready", long_running},
             {"started", long_running},
             {"restartCount", 0},
             {"state", state}}
        );
    }
    const std::string ready = long_running ? "True" : "False";
    const std::string phase = long_running ? "Running" : exit_code == 0 ? "Succeeded" : "Failed";
    const std::string ip =
        "10.244.0." + std::to_string(2 + std::hash<std::string>{}(pod["metadata"].value("name", "")) % 250);
    return {
        {"status",
         {{"phase", phase},
          {"hostIP", "127.0.0.1"},
          {"podIP", ip},
          {"podIPs", Json::array({{{"ip", ip}}})},
          {"startTime", now},
          {"conditions",
           Json::array(
               {{{"type", "Initialized"}, {"status", "True"}, {"lastTransitionTime", now}},
                {{"type", "ContainersReady"}, {"status", ready}, {"lastTransitionTime", now}},
                {{"type", "Ready"}, {"status", ready}, {"lastTransitionTime", now}}}
           )},
          {"containerStatuses", containers}}}};
}

}  // namespace

void EnsureNodes() {
    static std::once_flag registered;
    std::call_once(registered, [] {
        RegisterNode(kGpuNode, true);
        RegisterNode(kCpuNode, false);
    });
}

void RemoveNamespace(const std::string& ns) {
    const Answer list = AdminCall("GET", "/api/v1/namespaces/" + ns + "/pods");
    if (list.status == 404) {
        return;
    }
    AdminCall("DELETE", "/api/v1/namespaces/" + ns);
    const Json now = {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}, {"gracePeriodSeconds", 0}};
    for (const auto& pod : list.body.value("items", Json::array())) {
        AdminCall("DELETE", "/api/v1/namespaces/" + ns + "/pods/" + pod["metadata"].value("name", ""), &now);
    }
}

void Pass(const std::string& ns) {
    EnsureNodes();
    const Answer list = AdminCall("GET", "/api/v1/namespaces/" + ns + "/pods");
    if (list.status == 404) {
        return;
    }
    Expect(list, {200}, "listing pods of " + ns);
    for (const auto& pod : list.body.value("items", Json::array())) {
        const std::string name = pod["metadata"].value("name", "");
        const std::string path = "/api/v1/namespaces/" + ns + "/pods/" + name;
        if (pod["metadata"].contains("deletionTimestamp")) {
            const Json now = {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}, {"gracePeriodSeconds", 0}};
            Expect(AdminCall("DELETE", path, &now), {200, 404}, "removing pod " + name);
            continue;
        }
        const std::string node = pod["spec"].value("nodeName", "");
        const std::string phase = pod.value("status", Json::object()).value("phase", "Pending");
        if ((node != kGpuNode && node != kCpuNode) || phase != "Pending") {
            continue;
        }
        const Json status = StartedStatus(pod);
        Expect(AdminCall("PATCH", path + "/status", &status, kStrategicMerge), {200, 404}, "starting pod " + name);
    }
}

}  // namespace orch::test::kube::kubelet

namespace orch::test::kube::flux {

void ReportInstalled(const std::string& path, const std::string& flux_version) {
    const auto release = AdminCall("GET", path);
    if (release.status != 200) {
        throw std::runtime_error("fake Flux: " + path + ": HTTP " + std::to_string(release.status));
    }
    const Json generation = release.body["metadata"]["generation"];
    const Json now = "2026-01-01T00:00:00Z";
    const Json status =
        flux_version == "v1"
            ? Json{{"phase", "Succeeded"},
                   {"releaseStatus", "deployed"},
                   {"observedGeneration", generation},
                   {"conditions",
                    {{{"type", "Released"}, {"status", "True"}, {"reason", "Succeeded"}, {"lastTransitionTime", now}}}}}
            : Json{{"observedGeneration", generation},
                   {"conditions",
                    {{{"type", "Ready"},
                      {"status", "True"},
                      {"reason", "ReconciliationSucceeded"},
                      {"message", "Release reconciliation succeeded"},
                      {"lastTransitionTime", now}}}}};
    const Json patch = {{"status", status}};
    const auto patched = AdminCall("PATCH", path + "/status", &patch, "application/merge-patch+json");
    if (patched.status != 200) {
        throw std::runtime_error(
            "fake Flux: " + path + "/status: HTTP " + std::to_string(patched.status) + " " + patched.body.dump()
        );
    }
}

}  // namespace orch::test::kube::flux
