// tosca.nodes.indigo.Kubernetes.HelmChart -> a Flux HelmRelease (v1 as the original, or v2 with
// its HelmRepository source), and the release's status conditions read back.
#include "kubernetes/helm_release.hpp"

#include "connectors/workload.hpp"
#include "kubernetes/kubernetes_poll.hpp"

#include <yaml-cpp/yaml.h>

#include <array>
#include <charconv>
#include <cstdint>

namespace orch::connectors::kubernetes {
namespace {

// The values text is the user's: these bound what converting it may cost.
constexpr std::size_t kMaxValuesBytes = 256 * 1024;
constexpr std::size_t kMaxValuesNodes = 50'000;  // aliases count once per reference
constexpr int kMaxValuesDepth = 64;

constexpr char kManagedBy[] = "indigo-orchestrator";

// A plain YAML scalar as YAML 1.2's core schema reads it (Helm parses values that way).
Json PlainScalar(const std::string& text) {
    static constexpr std::array<std::string_view, 4> kNull = {"", "~", "null", "Null"};
    for (auto n : kNull) {
        if (text == n || text == "NULL") {
            return nullptr;
        }
    }
    if (text == "true" || text == "True" || text == "TRUE") {
        return true;
    }
    if (text == "false" || text == "False" || text == "FALSE") {
        return false;
    }
    const char* begin = text.data();
    const char* end = begin + text.size();
    std::int64_t integer = 0;
    if (auto [ptr, ec] = std::from_chars(begin, end, integer); ec == std::errc() && ptr == end) {
        return integer;
    }
    double real = 0;
    if (auto [ptr, ec] = std::from_chars(begin, end, real); ec == std::errc() && ptr == end) {
        return real;
    }
    return text;
}

class ValuesConverter {
   public:
    std::optional<std::string> error;

    Json Convert(const YAML::Node& node, int depth) {
        if (error) {
            return nullptr;
        }
        if (++nodes_ > kMaxValuesNodes || depth > kMaxValuesDepth) {
            error = "the chart values are too large or too deeply nested (at most " + std::to_string(kMaxValuesNodes) +
                    " values, nested " + std::to_string(kMaxValuesDepth) + " deep, aliases counted per reference)";
            return nullptr;
        }
        switch (node.Type()) {
            case YAML::NodeType::Map: {
                Json out = Json::object();
                for (const auto& entry : node) {
                    out[entry.first.Scalar()] = Convert(entry.second, depth + 1);
                }
                return out;
            }
            case YAML::NodeType::Sequence: {
                Json out = Json::array();
                for (const auto& item : node) {
                    out.push_back(Convert(item, depth + 1));
                }
                return out;
            }
            case YAML::NodeType::Scalar:
                return node.Tag() == "!" ? Json(node.Scalar()) : PlainScalar(node.Scalar());
            default:
                return nullptr;
        }
    }

   private:
    std::size_t nodes_ = 0;
};

Failure ValuesError(const tosca::NodeSpec& node, const std::string& why) {
    return Failure{FailureKind::kUserError, "node " + node.name + ": property values: " + why};
}

Json Metadata(const std::string& name, const std::string& chart) {
    return {
        {"name", name},
        {"labels",
         {{"app.kubernetes.io/name", name},
          {"app.kubernetes.io/component", chart},
          {"app.kubernetes.io/managed-by", kManagedBy}}}};
}

std::string ConditionText(const Json* condition) {
    if (condition == nullptr) {
        return "";
    }
    const std::string reason = condition->value("reason", "");
    const std::string message = condition->value("message", "");
    return reason + (message.empty() ? "" : (reason.empty() ? "" : ": ") + message);
}

// Flux v1 (Helm Operator): status.phase with releaseStatus; the Released condition has the why.
HelmVerdict JudgeV1(const std::string& name, const Json& release, const Json& status) {
    static constexpr std::array<std::string_view, 6> kFailed = {
        "RolledBack", "Failed", "DeployFailed", "TestFailed", "ChartFetchFailed", "RollbackFailed"};
    HelmVerdict v;
    const std::string phase = status.value("phase", "");
    const Json* released = FindCondition(status, "Released");
    const bool current = status.value("observedGeneration", 0L) >= release["metadata"].value("generation", 0L);
    if (current && phase == "Succeeded" && status.value("releaseStatus", "") == "deployed") {
        v.ready = true;
        return v;
    }
    for (auto failed : kFailed) {
        if (current && phase == failed) {
            const Json* fetched = FindCondition(status, "ChartFetched");
            const std::string why = phase == "ChartFetchFailed" ? ConditionText(fetched) : ConditionText(released);
            // A chart that cannot be fetched is the template's (repository, name, version); an
            // install that fails may be the site's (capacity, a missing storage class).
            v.failure = Failure{
                phase == "ChartFetchFailed" ? FailureKind::kUserError : FailureKind::kTryAnotherSite,
                "HelmRelease " + name + " " + phase + (why.empty() ? "" : ": " + why)};
            return v;
        }
    }
    v.waiting = "HelmRelease " + name + ": " + (phase.empty() ? "waiting for the Helm Operator" : phase);
    return v;
}

// Flux v2: Ready of the current generation; Ready=False with a failed install/upgrade is final
// (remediation retries are off), other False reasons (a source not ready yet) are retried by Flux.
HelmVerdict JudgeV2(const std::string& name, const Json& release, const Json& status) {
    static constexpr std::array<std::string_view, 5> kFinal = {
        "InstallFailed", "UpgradeFailed", "TestFailed", "RollbackSucceeded", "UninstallSucceeded"};
    HelmVerdict v;
    const Json* ready = FindCondition(status, "Ready");
    const long generation = release["metadata"].value("generation", 0L);
    const bool current = status.value("observedGeneration", -1L) >= generation;
    if (ready != nullptr && current && ready->value("status", "") == "True") {
        v.ready = true;
        return v;
    }
    if (ready != nullptr && current && ready->value("status", "") == "False") {
        const Json* released = FindCondition(status, "Released");
        for (auto reason : kFinal) {
            if (ready->value("reason", "") == reason ||
                (released != nullptr && released->value("reason", "") == reason)) {
                const std::string why = ConditionText(released != nullptr ? released : ready);
                v.failure = Failure{FailureKind::kTryAnotherSite, "HelmRelease " + name + " failed: " + why};
                return v;
            }
        }
    }
    const std::string text = current ? ConditionText(ready) : "";
    v.waiting = "HelmRelease " + name + ": " + (text.empty() ? "waiting for Flux to reconcile it" : text);
    return v;
}

}  // namespace

ConnectorResult<FluxVersion> FluxVersionOf(const SiteTarget& target) {
    const std::string version = OptionString(target, "flux_version", "v1");
    if (version == "v1") {
        return FluxVersion::kV1;
    }
    if (version == "v2") {
        return FluxVersion::kV2;
    }
    return Failure{
        FailureKind::kTryAnotherSite,
        "site " + target.site_id + " declares flux_version '" + version.substr(0, 16) + "' (v1 or v2 expected)"};
}

ConnectorResult<Json> HelmValues(const tosca::NodeSpec& node) {
    const auto it = node.properties.find("values");
    if (it == node.properties.end() || it->is_null()) {
        return Json::object();
    }
    if (it->is_object()) {
        return *it;
    }
    if (!it->is_string()) {
        return ValuesError(node, "a YAML text or a map is expected");
    }
    const std::string& text = it->get_ref<const std::string&>();
    if (text.size() > kMaxValuesBytes) {
        return ValuesError(node, "larger than " + std::to_string(kMaxValuesBytes / 1024) + " KiB");
    }
    YAML::Node document;
    try {
        document = YAML::Load(text);
    } catch (const YAML::Exception& e) {
        return ValuesError(node, "not valid YAML (line " + std::to_string(e.mark.line + 1) + ")");
    }
    ValuesConverter converter;
    Json values = converter.Convert(document, 0);
    if (converter.error) {
        return ValuesError(node, *converter.error);
    }
    if (values.is_null()) {
        return Json::object();
    }
    if (!values.is_object()) {
        return ValuesError(node, "the YAML text must be a map of chart values");
    }
    return values;
}

ConnectorResult<std::vector<KubeManifest>> HelmManifests(
    const tosca::NodeSpec& node, const std::string& name, const std::string& ns, const SiteTarget& target
) {
    ORCH_CONNECTOR_TRY(FluxVersion flux, FluxVersionOf(target));
    const std::string repository = PropertyString(node, "repository");
    const std::string chart = PropertyString(node, "name");
    const std::string version = PropertyString(node, "version");
    if (repository.empty() || chart.empty()) {
        return Failure{FailureKind::kUserError, "node " + node.name + ": a Helm chart needs repository and name"};
    }
    ORCH_CONNECTOR_TRY(Json values, HelmValues(node));
    std::vector<KubeManifest> out;
    if (flux == FluxVersion::kV1) {
        Json chart_ref = {{"repository", repository}, {"name", chart}};
        if (!version.empty()) {
            chart_ref["version"] = version;
        }
        out.push_back(
            {node.name,
             "HelmRelease",
             name,
             "/apis/helm.fluxcd.io/v1/namespaces/" + ns + "/helmreleases",
             {{"apiVersion", "helm.fluxcd.io/v1"},
              {"kind", "HelmRelease"},
              {"metadata", Metadata(name, chart)},
              {"spec", {{"releaseName", name}, {"chart", chart_ref}, {"wait", true}, {"values", values}}}}}
        );
        return out;
    }
    const std::string source = name + "-repo";
    Json source_spec = {{"url", repository}, {"interval", "10m"}};
    if (repository.rfind("oci://", 0) == 0) {
        source_spec["type"] = "oci";
    }
    out.push_back(
        {node.name,
         "HelmRepository",
         source,
         "/apis/source.toolkit.fluxcd.io/v1beta2/namespaces/" + ns + "/helmrepositories",
         {{"apiVersion", "source.toolkit.fluxcd.io/v1beta2"},
          {"kind", "HelmRepository"},
          {"metadata", Metadata(source, chart)},
          {"spec", source_spec}}}
    );
    Json chart_spec = {{"chart", chart}, {"sourceRef", {{"kind", "HelmRepository"}, {"name", source}}}};
    if (!version.empty()) {
        chart_spec["version"] = version;
    }
    out.push_back(
        {node.name,
         "HelmRelease",
         name,
         "/apis/helm.toolkit.fluxcd.io/v2beta1/namespaces/" + ns + "/helmreleases",
         {{"apiVersion", "helm.toolkit.fluxcd.io/v2beta1"},
          {"kind", "HelmRelease"},
          {"metadata", Metadata(name, chart)},
          // No install retries: a failed install is reported, as the original does.
          {"spec",
           {{"interval", "5m"},
            {"releaseName", name},
            {"chart", {{"spec", chart_spec}}},
            {"install", {{"remediation", {{"retries", 0}}}}},
            {"values", values}}}}}
    );
    return out;
}

HelmVerdict JudgeHelmRelease(const Json& release) {
    const std::string name = release["metadata"].value("name", "");
    const Json status = release.value("status", Json::object());
    return release.value("apiVersion", "").rfind("helm.fluxcd.io/", 0) == 0 ? JudgeV1(name, release, status)
                                                                            : JudgeV2(name, release, status);
}

Json HelmServicePorts(const std::string& release, const Json& services) {
    Json out = Json::object();
    const std::string prefix = release + "-";
    for (const auto& service : services.value("items", Json::array())) {
        std::string svc = service["metadata"].value("name", "");
        if (svc.rfind(prefix, 0) == 0 && svc.size() > prefix.size()) {
            svc = svc.substr(prefix.size());
        }
        Json ports = Json::object();
        for (const auto& p : service["spec"].value("ports", Json::array())) {
            const std::string protocol = p.value("protocol", "TCP") == "UDP" ? "udp" : "tcp";
            ports[p.value("name", std::to_string(p.value("port", 0)))] = {
                {"source", p.value("port", 0)}, {"target", p.value("nodePort", 0)}, {"protocol", protocol}};
        }
        out[svc] = ports;
    }
    return out;
}

}  // namespace orch::connectors::kubernetes
