// The Flux controllers a site with Helm runs, as far as the orchestrator sees them: the Helm
// Operator (helm.fluxcd.io/v1) and Flux v2's helm- and source-controllers. A release fetches its
// chart, then installs it: its status conditions progress as the real controllers write them,
// and the installed chart is one Service (`<release>-<chart>`, labelled with the release as Helm
// charts are) owned by the release, so uninstalling (deleting the release) removes it.
//
// Simulator-only knob: the chart value SIM_HELM_ERROR=<text> makes the install fail with <text>.
#include "kube_model.hpp"

#include <cctype>

namespace orch::sim {
namespace {

bool IsV1(const KubeObject& release) {
    return release.resource->group == "helm.fluxcd.io";
}

// A Go duration as Flux parses its intervals and timeouts ("5m", "1h30m", "10m0s", "30s").
bool GoDuration(const std::string& text) {
    if (text.empty() || text.size() > 32) {
        return false;
    }
    std::size_t i = 0;
    while (i < text.size()) {
        const std::size_t digits = i;
        while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) != 0 || text[i] == '.')) {
            ++i;
        }
        if (i == digits) {
            return false;
        }
        const std::size_t unit = i;
        while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i])) != 0) {
            ++i;
        }
        const std::string u = text.substr(unit, i - unit);
        if (u != "ns" && u != "us" && u != "ms" && u != "s" && u != "m" && u != "h") {
            return false;
        }
    }
    return true;
}

bool StartsWith(const std::string& text, std::string_view prefix) {
    return text.rfind(prefix, 0) == 0;
}

Json Condition(
    const std::string& type,
    const std::string& status,
    const std::string& reason,
    const std::string& message,
    double now
) {
    return {
        {"type", type},
        {"status", status},
        {"reason", reason},
        {"message", message},
        {"lastTransitionTime", KubeTime(now)}};
}

// Keeps a condition's transition time while its status stays the same, as controllers do.
void SetCondition(Json& status, Json condition) {
    Json& conditions = status["conditions"];
    if (!conditions.is_array()) {
        conditions = Json::array();
    }
    for (auto& c : conditions) {
        if (c.value("type", "") == condition["type"]) {
            if (c.value("status", "") == condition["status"]) {
                condition["lastTransitionTime"] = c["lastTransitionTime"];
            }
            c = std::move(condition);
            return;
        }
    }
    conditions.push_back(std::move(condition));
}

std::string ChartOf(const KubeObject& release) {
    const Json& chart = release.body["spec"]["chart"];
    return IsV1(release) ? chart.value("name", "") : chart.value("spec", Json::object()).value("chart", "");
}

std::string ReleaseName(const KubeObject& release) {
    return release.body["spec"].value("releaseName", release.name);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> FluxProblems(const KubeResource& resource, const Json& spec) {
    std::vector<std::pair<std::string, std::string>> out;
    if (resource.kind == "HelmRepository") {
        const std::string url = spec.value("url", "");
        if (!StartsWith(url, "http://") && !StartsWith(url, "https://") && !StartsWith(url, "oci://")) {
            out.emplace_back("spec.url", "must start with http://, https:// or oci://");
        }
        if (StartsWith(url, "oci://") != (spec.value("type", "default") == "oci")) {
            out.emplace_back("spec.type", "must be oci exactly when the URL is oci://");
        }
    } else if (resource.kind == "HelmRelease" && resource.group == "helm.fluxcd.io") {
        const Json chart = spec.value("chart", Json::object());
        const bool repo = chart.contains("repository") && chart.contains("name") && chart.contains("version");
        const bool git = chart.contains("git") && chart.contains("path");
        if (repo == git) {
            out.emplace_back("spec.chart", "either repository, name and version or git and path are required");
        }
    } else if (resource.kind == "HelmRelease" && !GoDuration(spec.value("interval", ""))) {
        out.emplace_back("spec.interval", "must be a duration such as 5m or 1h30m");
    }
    for (const char* field : {"interval", "timeout"}) {
        if (resource.group != "helm.fluxcd.io" && spec.contains(field) && !GoDuration(spec.value(field, ""))) {
            out.emplace_back(std::string("spec.") + field, "must be a duration such as 5m or 1h30m");
        }
    }
    return out;
}

void KubernetesSim::State::InstallChart(const KubeObject& release, double now) {
    const std::string release_name = ReleaseName(release);
    const std::string name = release_name + "-" + ChartOf(release);
    if (Find("Service", release.ns, name) != nullptr) {
        return;
    }
    const Json service_values = release.body["spec"].value("values", Json::object()).value("service", Json::object());
    const Json port = service_values.value("port", Json(80));
    Json body = {
        {"apiVersion", "v1"},
        {"kind", "Service"},
        {"metadata",
         {{"name", name},
          {"namespace", release.ns},
          {"uid", NewUid()},
          {"creationTimestamp", KubeTime(now)},
          {"labels",
           {{"app.kubernetes.io/instance", release_name},
            {"app.kubernetes.io/name", ChartOf(release)},
            {"app.kubernetes.io/managed-by", "Helm"}}},
          {"ownerReferences",
           Json::array(
               {{{"apiVersion", release.resource->ApiVersion()},
                 {"kind", "HelmRelease"},
                 {"name", release.name},
                 {"uid", release.Uid()}}}
           )}}},
        {"spec",
         {{"type", service_values.value("type", "ClusterIP")},
          {"ports",
           Json::array({{{"name", ChartOf(release)}, {"port", port.is_number_integer() ? port : Json(80)}}})}}},
        {"status", Json::object()}};
    const KubeResource* services = FindKubeResource("", "v1", "services");
    ApplyKubeDefaults(*this, *services, body);
    const std::string type = body["spec"].value("type", "");
    if (type == "NodePort" || type == "LoadBalancer") {
        std::set<int> used;
        for (const auto& [key, object] : objects) {
            for (const auto& p : object.resource->kind == "Service" ? object.body["spec"].value("ports", Json::array())
                                                                    : Json::array()) {
                used.insert(p.value("nodePort", 0));
            }
        }
        while (used.count(next_node_port) != 0) {
            ++next_node_port;
        }
        body["spec"]["ports"][0]["nodePort"] = next_node_port++;
    }
    KubeObject object;
    object.resource = services;
    object.ns = release.ns;
    object.name = name;
    object.body = std::move(body);
    Touch(object);
    objects[Key("Service", release.ns, name)] = std::move(object);
}

void KubernetesSim::State::RunHelmRepository(KubeObject& repository, double now) {
    Json& status = repository.body["status"];
    const Json before = status;
    status["observedGeneration"] = repository.body["metadata"].value("generation", 1);
    if (now - repository.last_progress >= config.timing.pod_start) {
        status["url"] = repository.body["spec"].value("url", "");
        SetCondition(status, Condition("Ready", "True", "Succeeded", "stored artifact: revision 'sha256:sim'", now));
    } else {
        SetCondition(status, Condition("Ready", "Unknown", "Progressing", "building artifact", now));
    }
    if (status != before) {
        Touch(repository);
    }
}

bool KubernetesSim::State::SourceReady(const KubeObject& release) const {
    const Json ref = release.body["spec"]["chart"].value("spec", Json::object()).value("sourceRef", Json::object());
    const auto it = objects.find(Key("HelmRepository", ref.value("namespace", release.ns), ref.value("name", "")));
    if (ref.value("kind", "") != "HelmRepository" || it == objects.end() || it->second.Deleting()) {
        return false;
    }
    for (const auto& c : it->second.body["status"].value("conditions", Json::array())) {
        if (c.value("type", "") == "Ready") {
            return c.value("status", "") == "True";
        }
    }
    return false;
}

void KubernetesSim::State::RunHelmRelease(KubeObject& release, double now) {
    Json& status = release.body["status"];
    const Json before = status;
    const double elapsed = now - release.last_progress;
    const std::string error =
        release.body["spec"].value("values", Json::object()).value("SIM_HELM_ERROR", std::string());
    const std::string chart = ChartOf(release);
    const bool fetched = elapsed >= config.timing.pod_start && (IsV1(release) || SourceReady(release));
    const bool done = fetched && elapsed >= 2 * config.timing.pod_start;
    if (done) {  // the controller has acted on this generation
        status["observedGeneration"] = release.body["metadata"].value("generation", 1);
    }
    if (IsV1(release)) {
        status["releaseName"] = ReleaseName(release);
        if (fetched) {
            SetCondition(status, Condition("ChartFetched", "True", "RepoChartInCache", "chart fetched: " + chart, now));
            status["phase"] = "ChartFetched";
        }
        if (done && error.empty()) {
            InstallChart(release, now);
            status["phase"] = "Succeeded";
            status["releaseStatus"] = "deployed";
            status["revision"] = release.body["spec"]["chart"].value("version", "");
            SetCondition(status, Condition("Released", "True", "HelmSuccess", "Helm release sync succeeded", now));
        } else if (done) {
            status["phase"] = "DeployFailed";
            status["releaseStatus"] = "failed";
            SetCondition(
                status, Condition("Released", "False", "HelmInstallFailed", "Helm install failed: " + error, now)
            );
        }
    } else if (!fetched) {
        const std::string source = release.body["spec"]["chart"]["spec"]["sourceRef"].value("name", "");
        SetCondition(
            status,
            Condition(
                "Ready",
                "False",
                "ArtifactFailed",
                "HelmChart '" + release.ns + "/" + release.ns + "-" + release.name + "' is not ready (source " +
                    source + ")",
                now
            )
        );
    } else if (!done) {
        SetCondition(status, Condition("Ready", "Unknown", "Progressing", "Reconciliation in progress", now));
    } else if (error.empty()) {
        InstallChart(release, now);
        status["lastAppliedRevision"] = release.body["spec"]["chart"]["spec"].value("version", "");
        SetCondition(status, Condition("Released", "True", "InstallSucceeded", "Helm install succeeded", now));
        SetCondition(
            status, Condition("Ready", "True", "ReconciliationSucceeded", "Release reconciliation succeeded", now)
        );
    } else {
        SetCondition(status, Condition("Released", "False", "InstallFailed", "Helm install failed: " + error, now));
        SetCondition(status, Condition("Ready", "False", "InstallFailed", "Helm install failed: " + error, now));
    }
    if (status != before) {
        Touch(release);
    }
}

}  // namespace orch::sim
