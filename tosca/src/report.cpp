#include "tosca/report.hpp"

namespace orch::tosca {
namespace {

Json Optional(const std::optional<double>& value) {
    return value ? Json(*value) : Json(nullptr);
}
Json Optional(const std::optional<std::uint64_t>& value) {
    return value ? Json(*value) : Json(nullptr);
}
Json Text(const std::string& value) {
    return value.empty() ? Json(nullptr) : Json(value);
}

}  // namespace

Json CheckReport(const TemplateCheck& check) {
    Json report = Json::object();
    report["valid"] = check.valid();
    Json errors = Json::array();
    for (const auto& d : check.diagnostics) {
        errors.push_back({
            {"file", d.file},
            {"line", d.line},
            {"column", d.column},
            {"path", d.path},
            {"message", d.message},
            {"severity", std::string(SeverityName(d.severity))},
            {"code", DiagnosticLabel(d)},
        });
    }
    report["errors"] = std::move(errors);
    report["kind"] = nullptr;
    report["nodes"] = Json::array();
    if (!check.spec) {
        return report;
    }
    report["kind"] = std::string(DeploymentKindName(check.spec->kind));
    for (const auto& node : check.spec->nodes) {
        const ResourceRequest& r = node.resources;
        report["nodes"].push_back({
            {"name", node.name},
            {"type", node.type},
            {"count", node.count},
            {"requirements",
             {
                 {"cpus", Optional(r.cpus)},
                 {"mem_mb", Optional(r.mem_mb)},
                 {"disk_mb", Optional(r.disk_mb)},
                 {"gpus", r.gpu.count},
                 {"gpu_vendor", Text(r.gpu.vendor)},
                 {"gpu_model", Text(r.gpu.model)},
             }},
        });
    }
    return report;
}

}  // namespace orch::tosca
