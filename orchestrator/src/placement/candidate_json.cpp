#include "orchestrator/placement/candidate_json.hpp"

#include <optional>
#include <string_view>

namespace orch::placement {
namespace {

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

}  // namespace

Json TargetToJson(const connectors::SiteTarget& target) {
    return Json{
        {"site_id", target.site_id},
        {"service_id", target.service_id},
        {"kind", connectors::TargetKindName(target.kind)},
        {"endpoint", target.endpoint},
        {"region", target.region},
        {"project", target.project},
        {"options", target.options}};
}

Result<connectors::SiteTarget> TargetFromJson(const Json& json) {
    if (!json.is_object()) {
        return Error::Internal("stored site target is not an object");
    }
    connectors::SiteTarget target;
    target.site_id = json.value("site_id", "");
    target.service_id = json.value("service_id", "");
    const auto kind = ParseTargetKind(json.value("kind", ""));
    if (!kind) {
        return Error::Internal("stored site target has an unknown kind");
    }
    target.kind = *kind;
    target.endpoint = json.value("endpoint", "");
    target.region = json.value("region", "");
    target.project = json.value("project", "");
    target.options = json.value("options", Json::object());
    return target;
}

Json PlacementsToJson(const std::map<std::string, connectors::NodePlacement>& placements) {
    Json out = Json::object();
    for (const auto& [node, p] : placements) {
        out[node] = {
            {"flavor_id", p.flavor_id},
            {"flavor_name", p.flavor_name},
            {"image_id", p.image_id},
            {"image_name", p.image_name}};
    }
    return out;
}

Json CandidateToJson(const Candidate& candidate) {
    return Json{
        {"target", TargetToJson(candidate.target)},
        {"placements", PlacementsToJson(candidate.placements)},
        {"provider_name", candidate.provider_name},
        {"endpoint", candidate.endpoint},
        {"score", candidate.score}};
}

Result<Candidate> CandidateFromJson(const Json& json) {
    if (!json.is_object()) {
        return Error::Internal("stored candidate is not an object");
    }
    Candidate candidate;
    ORCH_ASSIGN_OR_RETURN(candidate.target, TargetFromJson(json.value("target", Json::object())));
    const Json placements = json.value("placements", Json::object());  // named: items() must not outlive it
    for (const auto& [node, p] : placements.items()) {
        candidate.placements[node] = connectors::NodePlacement{
            p.value("flavor_id", ""), p.value("flavor_name", ""), p.value("image_id", ""), p.value("image_name", "")};
    }
    candidate.provider_name = json.value("provider_name", "");
    candidate.endpoint = json.value("endpoint", Json::object());
    candidate.score = json.value("score", 0.0);
    return candidate;
}

}  // namespace orch::placement
