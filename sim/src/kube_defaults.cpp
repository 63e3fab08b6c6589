// Defaults the API server fills in on create and replace (what a GET then shows).
#include "kube_model.hpp"
#include "sim/sim_clock.hpp"

#include <cmath>

namespace orch::sim {

void ApplyKubePodDefaults(Json& pod_spec, const std::string& restart) {
    if (!pod_spec.contains("restartPolicy")) {
        pod_spec["restartPolicy"] = restart;
    }
    for (auto& c : pod_spec["containers"]) {
        if (!c.contains("imagePullPolicy")) {
            const std::string image = c.value("image", "");
            const bool latest = image.find(':') == std::string::npos ||
                                (image.size() >= 7 && image.substr(image.size() - 7) == ":latest");
            c["imagePullPolicy"] = latest ? "Always" : "IfNotPresent";
        }
        if (c.contains("ports")) {
            for (auto& p : c["ports"]) {
                if (!p.contains("protocol")) {
                    p["protocol"] = "TCP";
                }
            }
        }
    }
}

void ApplyKubeJobDefaults(Json& spec, const std::string& uid, const std::string& job_name) {
    const auto set_default = [&](const char* key, const Json& value) {
        if (!spec.contains(key)) {
            spec[key] = value;
        }
    };
    set_default("backoffLimit", 6);
    set_default("completions", 1);
    set_default("parallelism", 1);
    if (!uid.empty() && !spec.value("manualSelector", false)) {
        spec["selector"] = {{"matchLabels", {{"controller-uid", uid}}}};
        spec["template"]["metadata"]["labels"]["controller-uid"] = uid;
        spec["template"]["metadata"]["labels"]["job-name"] = job_name;
    }
    ApplyKubePodDefaults(spec["template"]["spec"], "Never");
}

std::string KubeTime(double seconds) {
    return FormatIsoTime(std::floor(seconds)).substr(0, 19) + "Z";
}

void ApplyKubeDefaults(KubernetesSim::State& state, const KubeResource& r, Json& object) {
    Json& spec = object["spec"];
    if (r.kind == "Deployment") {
        if (!spec.contains("replicas")) {
            spec["replicas"] = 1;
        }
        if (!spec.contains("strategy")) {
            spec["strategy"] = {
                {"type", "RollingUpdate"}, {"rollingUpdate", {{"maxUnavailable", "25%"}, {"maxSurge", "25%"}}}};
        }
        if (!spec.contains("progressDeadlineSeconds")) {
            spec["progressDeadlineSeconds"] = 600;
        }
        if (!spec.contains("revisionHistoryLimit")) {
            spec["revisionHistoryLimit"] = 10;
        }
        ApplyKubePodDefaults(spec["template"]["spec"], "Always");
    } else if (r.kind == "Job") {
        ApplyKubeJobDefaults(spec, object["metadata"].value("uid", ""), object["metadata"].value("name", ""));
    } else if (r.kind == "CronJob") {
        const Json defaults = {
            {"concurrencyPolicy", "Allow"},
            {"suspend", false},
            {"successfulJobsHistoryLimit", 3},
            {"failedJobsHistoryLimit", 1}};
        for (const auto& [key, value] : defaults.items()) {
            if (!spec.contains(key)) {
                spec[key] = value;
            }
        }
        ApplyKubeJobDefaults(spec["jobTemplate"]["spec"], "", "");
    } else if (r.kind == "Service") {
        if (!spec.contains("type")) {
            spec["type"] = "ClusterIP";
        }
        if (!spec.contains("clusterIP")) {
            spec["clusterIP"] = "10.96.0." + std::to_string(state.next_cluster_ip++ % 250 + 2);
        }
        if (!spec.contains("sessionAffinity")) {
            spec["sessionAffinity"] = "None";
        }
        for (auto& port : spec["ports"]) {
            if (!port.contains("protocol")) {
                port["protocol"] = "TCP";
            }
            if (!port.contains("targetPort")) {
                port["targetPort"] = port["port"];
            }
        }
        if (!object.contains("status")) {
            object["status"] = {{"loadBalancer", Json::object()}};
        }
    } else if (r.kind == "Namespace") {
        spec["finalizers"] = Json::array({"kubernetes"});
        object["status"] = {{"phase", "Active"}};
    }
    if (spec.empty() && r.kind != "Namespace" && r.kind != "Deployment") {
        object.erase("spec");
    }
}

}  // namespace orch::sim
