// What kube-apiserver 1.20 checks on create/update, with its messages: strict decoding against
// the generated schemas, then the validation rules of pkg/apis/{core,apps,batch}/validation.
#include "cron.hpp"
#include "kube_model.hpp"

#include <cmath>
#include <regex>
#include <set>

namespace orch::sim {
namespace {

struct Cause {
    std::string field;
    std::string reason;  ///< FieldValueRequired, FieldValueInvalid, FieldValueNotSupported, ...
    std::string detail;  ///< "Required value", "Invalid value: \"x\": ...", ...
};

using Causes = std::vector<Cause>;

const std::regex& Dns1123Label() {
    static const std::regex kRe("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");
    return kRe;
}
const std::regex& Dns1035Label() {
    static const std::regex kRe("^[a-z]([-a-z0-9]*[a-z0-9])?$");
    return kRe;
}
const std::regex& Dns1123Subdomain() {
    static const std::regex kRe("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");
    return kRe;
}
const std::regex& LabelValue() {
    static const std::regex kRe("^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$");
    return kRe;
}

void Required(Causes& causes, const std::string& field, const std::string& extra = "") {
    causes.push_back({field, "FieldValueRequired", "Required value" + (extra.empty() ? "" : ": " + extra)});
}

void Invalid(Causes& causes, const std::string& field, const Json& value, const std::string& why) {
    const std::string shown = value.is_string() ? "\"" + value.get<std::string>() + "\"" : value.dump();
    causes.push_back({field, "FieldValueInvalid", "Invalid value: " + shown + ": " + why});
}

void NotSupported(Causes& causes, const std::string& field, const std::string& value, const std::string& supported) {
    causes.push_back(
        {field, "FieldValueNotSupported", "Unsupported value: \"" + value + "\": supported values: " + supported}
    );
}

void CheckName(Causes& causes, const std::string& field, const std::string& name, const std::string& style) {
    if (style == "label" && (name.size() > 63 || !std::regex_match(name, Dns1123Label()))) {
        Invalid(
            causes,
            field,
            name,
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
            "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
        );
    } else if (style == "1035" && (name.size() > 63 || !std::regex_match(name, Dns1035Label()))) {
        Invalid(
            causes,
            field,
            name,
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
            "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
            "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
        );
    } else if (style == "subdomain" && (name.size() > 253 || !std::regex_match(name, Dns1123Subdomain()))) {
        Invalid(
            causes,
            field,
            name,
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
            "must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
        );
    }
}

void CheckMetadata(Causes& causes, const KubeResource& resource, const Json& metadata) {
    const std::string name = metadata.value("name", "");
    if (name.empty()) {
        Required(causes, "metadata.name", "name or generateName is required");
        return;
    }
    const std::string style = resource.kind == "Namespace" ? "label"
                              : resource.kind == "Service" ? "1035"
                                                           : "subdomain";
    CheckName(causes, "metadata.name", name, style);
    if (resource.kind == "CronJob" && name.size() > 52) {
        Invalid(causes, "metadata.name", name, "must be no more than 52 characters");
    }
    const Json labels = metadata.value("labels", Json::object());
    for (const auto& [key, value] : labels.items()) {
        if (!value.is_string() || value.get<std::string>().size() > 63 ||
            !std::regex_match(value.get<std::string>(), LabelValue())) {
            Invalid(
                causes,
                "metadata.labels",
                value,
                "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
                "and must start and end with an alphanumeric character"
            );
        }
    }
}

bool IsExtendedResource(const std::string& name) {
    return name.find('/') != std::string::npos && name.rfind("kubernetes.io/", 0) != 0;
}

void CheckResources(Causes& causes, const std::string& field, const Json& resources) {
    const Json requests = resources.value("requests", Json::object());
    const Json limits = resources.value("limits", Json::object());
    for (const auto& [kind, list] : {std::pair{"requests", requests}, std::pair{"limits", limits}}) {
        for (const auto& [name, value] : list.items()) {
            const std::string at = field + "." + kind + "[" + name + "]";
            const auto parsed = ParseQuantity(value);
            if (!parsed) {
                Invalid(
                    causes,
                    at,
                    value,
                    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
                );
            } else if (IsExtendedResource(name) && std::floor(*parsed) != *parsed) {
                Invalid(causes, at, value, "must be an integer");
            }
        }
    }
    for (const auto& [name, value] : requests.items()) {
        const auto request = ParseQuantity(value);
        const auto limit = limits.contains(name) ? ParseQuantity(limits[name]) : std::nullopt;
        if (IsExtendedResource(name) && !limits.contains(name)) {
            Required(causes, field + ".limits", "Limit must be set for non overcommitable resources");
        } else if (IsExtendedResource(name) && request && limit && *request != *limit) {
            Invalid(causes, field + ".requests[" + name + "]", value, "must be equal to " + name + " limit");
        } else if (request && limit && *request > *limit) {
            Invalid(
                causes, field + ".requests[" + name + "]", value, "must be less than or equal to " + name + " limit"
            );
        }
    }
}

void CheckContainer(Causes& causes, const std::string& field, const Json& c, const std::set<std::string>& volumes) {
    CheckName(causes, field + ".name", c.value("name", ""), "label");
    if (c.value("image", "").empty()) {
        Required(causes, field + ".image");
    }
    const Json ports = c.value("ports", Json::array());
    for (std::size_t p = 0; p < ports.size(); ++p) {
        const std::string at = field + ".ports[" + std::to_string(p) + "]";
        const int port = ports[p].value("containerPort", 0);
        if (port < 1 || port > 65535) {
            Invalid(causes, at + ".containerPort", port, "must be between 1 and 65535, inclusive");
        }
        const std::string protocol = ports[p].value("protocol", "TCP");
        if (protocol != "TCP" && protocol != "UDP" && protocol != "SCTP") {
            NotSupported(causes, at + ".protocol", protocol, "\"SCTP\", \"TCP\", \"UDP\"");
        }
    }
    CheckResources(causes, field + ".resources", c.value("resources", Json::object()));
    const Json mounts = c.value("volumeMounts", Json::array());
    for (std::size_t m = 0; m < mounts.size(); ++m) {
        const std::string name = mounts[m].value("name", "");
        if (volumes.count(name) == 0) {
            causes.push_back(
                {field + ".volumeMounts[" + std::to_string(m) + "].name",
                 "FieldValueNotFound",
                 "Not found: \"" + name + "\""}
            );
        }
    }
}

void CheckPodSpec(Causes& causes, const std::string& field, const Json& spec, const std::set<std::string>& restart_ok) {
    std::set<std::string> volumes;
    for (const auto& v : spec.value("volumes", Json::array())) {
        volumes.insert(v.value("name", ""));
    }
    const Json containers = spec.value("containers", Json::array());
    if (containers.empty()) {
        Required(causes, field + ".containers");
    }
    std::set<std::string> names;
    for (std::size_t i = 0; i < containers.size(); ++i) {
        const std::string at = field + ".containers[" + std::to_string(i) + "]";
        CheckContainer(causes, at, containers[i], volumes);
        if (!names.insert(containers[i].value("name", "")).second) {
            causes.push_back(
                {at + ".name", "FieldValueDuplicate", "Duplicate value: \"" + containers[i].value("name", "") + "\""}
            );
        }
    }
    const std::string restart = spec.value("restartPolicy", "Always");
    if (restart_ok.count(restart) == 0) {
        std::string supported;
        for (const auto& r : restart_ok) {
            supported += (supported.empty() ? "\"" : ", \"") + r + "\"";
        }
        NotSupported(causes, field + ".restartPolicy", restart, supported);
    }
}

void CheckDeployment(Causes& causes, const Json& spec) {
    const Json labels =
        spec.value("template", Json::object()).value("metadata", Json::object()).value("labels", Json::object());
    if (!spec.contains("selector")) {
        Required(causes, "spec.selector");
    } else if (!LabelSelectorMatches(spec["selector"], labels)) {
        Invalid(causes, "spec.template.metadata.labels", labels, "`selector` does not match template `labels`");
    }
    CheckPodSpec(
        causes, "spec.template.spec", spec.value("template", Json::object()).value("spec", Json::object()), {"Always"}
    );
}

void CheckJobSpec(Causes& causes, const std::string& prefix, const Json& spec) {
    if (spec.contains("selector") && !spec.value("manualSelector", false)) {
        Invalid(causes, prefix + ".selector", spec["selector"], "`selector` will be auto-generated");
    }
    for (const char* field : {"parallelism", "completions", "backoffLimit", "activeDeadlineSeconds"}) {
        if (spec.contains(field) && spec[field].get<double>() < 0) {
            Invalid(causes, prefix + "." + field, spec[field], "must be greater than or equal to 0");
        }
    }
    CheckPodSpec(
        causes,
        prefix + ".template.spec",
        spec.value("template", Json::object()).value("spec", Json::object()),
        {"Never", "OnFailure"}
    );
}

void CheckService(Causes& causes, const Json& spec) {
    const std::string type = spec.value("type", "ClusterIP");
    if (type != "ClusterIP" && type != "NodePort" && type != "LoadBalancer" && type != "ExternalName") {
        NotSupported(causes, "spec.type", type, "\"ClusterIP\", \"ExternalName\", \"LoadBalancer\", \"NodePort\"");
    }
    const Json ports = spec.value("ports", Json::array());
    if (ports.empty() && type != "ExternalName" && spec.value("clusterIP", "") != "None") {
        Required(causes, "spec.ports");
    }
    std::set<std::string> names;
    for (std::size_t i = 0; i < ports.size(); ++i) {
        const std::string at = "spec.ports[" + std::to_string(i) + "]";
        const int port = ports[i].value("port", 0);
        if (port < 1 || port > 65535) {
            Invalid(causes, at + ".port", port, "must be between 1 and 65535, inclusive");
        }
        if (ports.size() > 1 && ports[i].value("name", "").empty()) {
            Required(causes, at + ".name");
        } else if (!names.insert(ports[i].value("name", "")).second) {
            causes.push_back(
                {at + ".name", "FieldValueDuplicate", "Duplicate value: \"" + ports[i].value("name", "") + "\""}
            );
        }
        if (ports[i].contains("nodePort")) {
            const int node_port = ports[i]["nodePort"].get<int>();
            if (type != "NodePort" && type != "LoadBalancer") {
                NotSupported(
                    causes, at + ".nodePort", std::to_string(node_port), "may not be used when `type` is '" + type + "'"
                );
            } else if (node_port < 30000 || node_port > 32767) {
                Invalid(
                    causes,
                    at + ".nodePort",
                    node_port,
                    "provided port is not in the valid range. The range of valid ports is 30000-32767"
                );
            }
        }
    }
}

Causes SemanticCauses(const KubeResource& resource, const Json& object) {
    Causes causes;
    CheckMetadata(causes, resource, object.value("metadata", Json::object()));
    const Json spec = object.value("spec", Json::object());
    if (resource.kind == "Deployment") {
        CheckDeployment(causes, spec);
    } else if (resource.kind == "Job") {
        CheckJobSpec(causes, "spec", spec);
    } else if (resource.kind == "CronJob") {
        const std::string schedule = spec.value("schedule", "");
        if (schedule.empty()) {
            Required(causes, "spec.schedule");
        } else if (auto parsed = CronSchedule::Parse(schedule); !parsed) {
            Invalid(causes, "spec.schedule", schedule, parsed.error().message);
        }
        CheckJobSpec(
            causes, "spec.jobTemplate.spec", spec.value("jobTemplate", Json::object()).value("spec", Json::object())
        );
    } else if (resource.kind == "Service") {
        CheckService(causes, spec);
    }
    for (auto& [field, detail] : FluxProblems(resource, spec)) {
        causes.push_back({field, "FieldValueInvalid", "Invalid value: " + detail});
    }
    return causes;
}

SimResponse InvalidResponse(const KubeResource& resource, const std::string& name, const Causes& causes) {
    Json details_causes = Json::array();
    std::string summary;
    for (const auto& c : causes) {
        details_causes.push_back({{"reason", c.reason}, {"message", c.detail}, {"field", c.field}});
        summary += (summary.empty() ? "" : ", ") + c.field + ": " + c.detail;
    }
    const std::string qualified = resource.group.empty() ? resource.kind : resource.kind + "." + resource.group;
    const std::string message =
        qualified + " \"" + name + "\" is invalid: " + (causes.size() > 1 ? "[" + summary + "]" : summary);
    return KubeStatus(
        422,
        "Invalid",
        message,
        {{"name", name}, {"group", resource.group}, {"kind", resource.kind}, {"causes", details_causes}}
    );
}

std::optional<SimResponse> SchemaProblems(
    const KubernetesSim::State& state, const KubeResource& resource, const Json& object
) {
    auto violations = state.schemas.Validate(resource.schema, object, 10);
    if (!violations) {
        return KubeStatus(500, "InternalError", "site-sim has no schema " + resource.schema);
    }
    if (violations->empty()) {
        return std::nullopt;
    }
    const std::string prefix =
        resource.kind + " in version \"" + resource.version + "\" cannot be handled as a " + resource.kind + ": ";
    Causes missing;
    for (const auto& v : *violations) {
        const std::string field = KubeFieldPath(v.path);
        if (v.message.rfind("unknown field", 0) == 0) {
            return KubeStatus(400, "BadRequest", prefix + "strict decoding error: unknown field \"" + field + "\"");
        }
        if (v.message.rfind("missing required field", 0) == 0) {
            const auto quote = v.message.find('"');
            const std::string member = v.message.substr(quote + 1, v.message.size() - quote - 2);
            Required(missing, field.empty() ? member : field + "." + member);
            continue;
        }
        return KubeStatus(400, "BadRequest", prefix + (field.empty() ? "(root)" : field) + ": " + v.message);
    }
    return InvalidResponse(resource, object.value("metadata", Json::object()).value("name", ""), missing);
}

}  // namespace

std::optional<SimResponse> ValidateKubeObject(
    const KubernetesSim::State& state, const KubeResource& resource, const Json& object
) {
    if (!object.is_object()) {
        return KubeStatus(400, "BadRequest", "the body of the request must be a JSON object");
    }
    if (!object.contains("kind")) {
        return KubeStatus(400, "BadRequest", "Object 'Kind' is missing in '" + object.dump().substr(0, 200) + "'");
    }
    if (object.value("apiVersion", "") != resource.ApiVersion()) {
        return KubeStatus(
            400,
            "BadRequest",
            "the API version in the data (" + object.value("apiVersion", "") +
                ") does not match the expected API version (" + resource.ApiVersion() + ")"
        );
    }
    if (object["kind"] != resource.kind) {
        return KubeStatus(
            400,
            "BadRequest",
            "the kind in the data (" + object["kind"].dump() + ") does not match the expected kind (" + resource.kind +
                ")"
        );
    }
    if (auto problem = SchemaProblems(state, resource, object)) {
        return problem;
    }
    const Causes causes = SemanticCauses(resource, object);
    if (!causes.empty()) {
        return InvalidResponse(resource, object["metadata"].value("name", ""), causes);
    }
    return std::nullopt;
}

}  // namespace orch::sim
