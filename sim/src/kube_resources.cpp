// The simulated API server's resource table, Status bodies, field paths and label selectors.
#include "kube_model.hpp"

#include <sstream>

namespace orch::sim {
namespace {

const std::vector<KubeResource>& Resources() {
    static const std::vector<KubeResource> kResources = {
        {"", "v1", "namespaces", "Namespace", "namespace-v1.json", false},
        {"", "v1", "services", "Service", "service-v1.json", true},
        {"", "v1", "configmaps", "ConfigMap", "configmap-v1.json", true},
        {"", "v1", "secrets", "Secret", "secret-v1.json", true},
        {"", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", "persistentvolumeclaim-v1.json", true},
        {"", "v1", "pods", "Pod", "", true},
        {"", "v1", "events", "Event", "", true},
        {"apps", "v1", "deployments", "Deployment", "deployment-apps-v1.json", true},
        {"batch", "v1", "jobs", "Job", "job-batch-v1.json", true},
        {"batch", "v1beta1", "cronjobs", "CronJob", "cronjob-batch-v1beta1.json", true},
        // Flux CRDs (installed on the site): the Helm Operator's (v1) and Flux v2's.
        {"helm.fluxcd.io", "v1", "helmreleases", "HelmRelease", "helmrelease-helm.fluxcd.io-v1.json", true},
        {"helm.toolkit.fluxcd.io",
         "v2beta1",
         "helmreleases",
         "HelmRelease",
         "helmrelease-helm.toolkit.fluxcd.io-v2beta1.json",
         true},
        {"source.toolkit.fluxcd.io",
         "v1beta2",
         "helmrepositories",
         "HelmRepository",
         "helmrepository-source.toolkit.fluxcd.io-v1beta2.json",
         true},
    };
    return kResources;
}

std::string Trim(const std::string& text) {
    const auto begin = text.find_first_not_of(' ');
    const auto end = text.find_last_not_of(' ');
    return begin == std::string::npos ? std::string() : text.substr(begin, end - begin + 1);
}

bool ExpressionMatches(const Json& expr, const Json& labels) {
    const std::string key = expr.value("key", "");
    const std::string op = expr.value("operator", "");
    const bool has = labels.is_object() && labels.contains(key);
    const std::string value = has && labels[key].is_string() ? labels[key].get<std::string>() : "";
    const Json values = expr.value("values", Json::array());
    const bool listed = std::find(values.begin(), values.end(), Json(value)) != values.end();
    if (op == "In") {
        return has && listed;
    }
    if (op == "NotIn") {
        return !has || !listed;
    }
    if (op == "Exists") {
        return has;
    }
    if (op == "DoesNotExist") {
        return !has;
    }
    return false;
}

}  // namespace

const KubeResource* FindKubeResource(const std::string& group, const std::string& version, const std::string& plural) {
    for (const auto& r : Resources()) {
        if (r.group == group && r.version == version && r.plural == plural) {
            return &r;
        }
    }
    return nullptr;
}

const KubeResource* FindKubeResourceByKind(const std::string& kind) {
    for (const auto& r : Resources()) {
        if (r.kind == kind) {
            return &r;
        }
    }
    return nullptr;
}

SimResponse KubeStatus(int code, const std::string& reason, const std::string& message, Json details) {
    Json body = {
        {"kind", "Status"},
        {"apiVersion", "v1"},
        {"metadata", Json::object()},
        {"status", "Failure"},
        {"message", message},
        {"reason", reason},
        {"code", code},
    };
    if (!details.is_null()) {
        body["details"] = std::move(details);
    }
    return SimResponse::JsonBody(code, body);
}

std::string KubeFieldPath(const std::string& pointer) {
    std::string out;
    std::size_t pos = 0;
    while (pos < pointer.size()) {
        const auto next = pointer.find('/', pos + 1);
        const std::string token =
            pointer.substr(pos + 1, next == std::string::npos ? std::string::npos : next - pos - 1);
        const bool numeric = !token.empty() && token.find_first_not_of("0123456789") == std::string::npos;
        if (numeric) {
            out += "[" + token + "]";
        } else {
            out += (out.empty() ? "" : ".") + token;
        }
        pos = next == std::string::npos ? pointer.size() : next;
    }
    return out;
}

std::optional<bool> SelectorMatches(const std::string& selector, const Json& labels) {
    std::istringstream in(selector);
    std::string term;
    while (std::getline(in, term, ',')) {
        term = Trim(term);
        if (term.empty()) {
            continue;
        }
        if (term.find(' ') != std::string::npos || term.find('(') != std::string::npos) {
            return std::nullopt;  // set-based syntax is not simulated
        }
        const auto neq = term.find("!=");
        const auto eq = term.find('=');
        std::string key;
        std::string value;
        bool negate = false;
        if (neq != std::string::npos) {
            key = term.substr(0, neq);
            value = term.substr(neq + 2);
            negate = true;
        } else if (eq != std::string::npos) {
            key = term.substr(0, eq);
            value = term.substr(term[eq + 1] == '=' ? eq + 2 : eq + 1);
        } else if (term[0] == '!') {
            if (labels.is_object() && labels.contains(term.substr(1))) {
                return false;
            }
            continue;
        } else {
            if (!labels.is_object() || !labels.contains(term)) {
                return false;
            }
            continue;
        }
        const bool equal = labels.is_object() && labels.contains(key) && labels[key] == value;
        if (equal == negate) {
            return false;
        }
    }
    return true;
}

bool LabelSelectorMatches(const Json& selector, const Json& labels) {
    if (!selector.is_object()) {
        return false;
    }
    const Json match_labels = selector.value("matchLabels", Json::object());
    for (const auto& [key, value] : match_labels.items()) {
        if (!labels.is_object() || !labels.contains(key) || labels[key] != value) {
            return false;
        }
    }
    for (const auto& expr : selector.value("matchExpressions", Json::array())) {
        if (!ExpressionMatches(expr, labels)) {
            return false;
        }
    }
    return true;
}

}  // namespace orch::sim
