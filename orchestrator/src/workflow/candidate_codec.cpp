#include "orchestrator/workflow/candidate_codec.hpp"

namespace orch::workflow {
namespace {

Json TargetToJson(const connectors::SiteTarget& t) {
    return Json{
        {"site_id", t.site_id},
        {"service_id", t.service_id},
        {"kind", connectors::TargetKindName(t.kind)},
        {"endpoint", t.endpoint},
        {"region", t.region},
        {"project", t.project},
        {"options", t.options}};
}

Result<connectors::SiteTarget> TargetFromJson(const Json& j) {
    if (!j.is_object()) {
        return Error::Internal("stored site target is not an object");
    }
    connectors::SiteTarget t;
    t.site_id = j.value("site_id", "");
    t.service_id = j.value("service_id", "");
    const auto kind = ParseTargetKind(j.value("kind", ""));
    if (!kind) {
        return Error::Internal("stored site target has an unknown kind");
    }
    t.kind = *kind;
    t.endpoint = j.value("endpoint", "");
    t.region = j.value("region", "");
    t.project = j.value("project", "");
    t.options = j.value("options", Json::object());
    return t;
}

}  // namespace

std::optional<connectors::TargetKind> ParseTargetKind(std::string_view name) {
    for (auto kind :
         {connectors::TargetKind::kOpenStack,
          connectors::TargetKind::kMarathon,
          connectors::TargetKind::kChronos,
          connectors::TargetKind::kKubernetes,
          connectors::TargetKind::kSlurm}) {
        if (connectors::TargetKindName(kind) == name) {
            return kind;
        }
    }
    return std::nullopt;
}

Json CandidateToJson(const placement::Candidate& c) {
    Json placements = Json::object();
    for (const auto& [node, p] : c.placements) {
        placements[node] = {
            {"flavor_id", p.flavor_id},
            {"flavor_name", p.flavor_name},
            {"image_id", p.image_id},
            {"image_name", p.image_name}};
    }
    return Json{
        {"target", TargetToJson(c.target)},
        {"placements", placements},
        {"provider_name", c.provider_name},
        {"endpoint", c.endpoint},
        {"score", c.score}};
}

Result<placement::Candidate> CandidateFromJson(const Json& j) {
    if (!j.is_object()) {
        return Error::Internal("stored candidate is not an object");
    }
    placement::Candidate c;
    ORCH_ASSIGN_OR_RETURN(c.target, TargetFromJson(j.value("target", Json::object())));
    const Json placements = j.value("placements", Json::object());  // named: items() must not outlive it
    for (const auto& [node, p] : placements.items()) {
        c.placements[node] = connectors::NodePlacement{
            p.value("flavor_id", ""), p.value("flavor_name", ""), p.value("image_id", ""), p.value("image_name", "")};
    }
    c.provider_name = j.value("provider_name", "");
    c.endpoint = j.value("endpoint", Json::object());
    c.score = j.value("score", 0.0);
    return c;
}

Json HandleToJson(const connectors::Handle& h) {
    return Json{
        {"deployment_id", h.deployment_id},
        {"physical_id", h.physical_id},
        {"target", TargetToJson(h.target)},
        {"state", h.state}};
}

Result<connectors::Handle> HandleFromJson(const Json& j) {
    if (!j.is_object()) {
        return Error::Internal("stored handle is not an object");
    }
    connectors::Handle h;
    h.deployment_id = j.value("deployment_id", "");
    h.physical_id = j.value("physical_id", "");
    ORCH_ASSIGN_OR_RETURN(h.target, TargetFromJson(j.value("target", Json::object())));
    h.state = j.value("state", Json::object());
    return h;
}

}  // namespace orch::workflow
