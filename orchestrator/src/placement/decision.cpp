#include "cmdb/service_kind.hpp"
#include "orchestrator/placement/candidate_json.hpp"
#include "orchestrator/placement/placer.hpp"

namespace orch::placement {
namespace {

constexpr std::string_view kNoCandidate = "No cloud provider meets the deployment requirements";

Json VerdictJson(const SiteVerdict& verdict) {
    return {
        {"provider_id", verdict.provider_id.view()},
        {"provider_name", verdict.provider_name.view()},
        {"service_id", verdict.service_id.view()},
        {"service_type", verdict.service_type.view()},
        {"accepted", verdict.accepted},
        {"rank", verdict.rank},
        {"score", verdict.score},
        {"reasons", verdict.reasons.Texts()},
        {"score_breakdown", verdict.score_breakdown.ToJson()},
    };
}

SiteVerdict VerdictFromJson(const Json& json) {
    SiteVerdict verdict;
    verdict.provider_id = json.value("provider_id", "");
    verdict.provider_name = json.value("provider_name", "");
    verdict.service_id = json.value("service_id", "");
    verdict.service_type = json.value("service_type", "");
    verdict.accepted = json.value("accepted", false);
    verdict.rank = json.value("rank", 0);
    verdict.score = json.value("score", 0.0);
    verdict.reasons = json.value("reasons", std::vector<std::string>{});
    verdict.score_breakdown = ScoreBreakdown(json.value("score_breakdown", Json::object()));
    return verdict;
}

std::string SiteLabel(const SiteVerdict& verdict) {
    const std::string name = (verdict.provider_name.empty() ? verdict.provider_id : verdict.provider_name).str();
    const auto kind = cmdb::ParseServiceKind(verdict.service_type);
    const std::string word =
        kind == cmdb::ServiceKind::kUnknown ? verdict.service_type.str() : std::string(cmdb::ServiceKindWord(kind));
    return word.empty() ? name : name + " (" + word + ")";
}

Json CandidateJson(const Candidate& candidate, int rank) {
    return {
        {"rank", rank},
        {"provider_id", candidate.target.site_id},
        {"provider_name", candidate.provider_name},
        {"service_id", candidate.target.service_id},
        {"deployment_type", std::string(connectors::TargetKindName(candidate.target.kind))},
        {"score", candidate.score},
        {"endpoint", candidate.endpoint},
        {"target", TargetToJson(candidate.target)},
        {"placements", PlacementsToJson(candidate.placements)},
    };
}

// VerdictJson written as text, keys in nlohmann's (sorted) order.
void WriteVerdict(JsonWriter& out, const SiteVerdict& verdict) {
    out.BeginObject();
    out.Key("accepted").Bool(verdict.accepted);
    out.Member("provider_id", verdict.provider_id.view());
    out.Member("provider_name", verdict.provider_name.view());
    out.Member("rank", static_cast<std::int64_t>(verdict.rank));
    out.Key("reasons").BeginArray();
    for (const auto& reason : verdict.reasons) {
        out.String(reason.Text());
    }
    out.EndArray();
    out.Key("score").Double(verdict.score);
    verdict.score_breakdown.WriteJson(out.Key("score_breakdown"));
    out.Member("service_id", verdict.service_id.view());
    out.Member("service_type", verdict.service_type.view());
    out.EndObject();
}

}  // namespace

std::string PlacementDecision::ToJsonText() const {
    std::string text;
    text.reserve(512 + verdicts.size() * 400);
    JsonWriter out(text);
    out.BeginObject();
    out.Key("candidates").BeginArray();
    int rank = 0;
    for (const auto& candidate : ranked) {
        out.Value(CandidateJson(candidate, ++rank));
    }
    out.EndArray();
    out.Key("chosen");
    if (ranked.empty()) {
        out.Null();
    } else {
        out.BeginObject()
            .Member("provider_id", ranked.front().target.site_id)
            .Member("service_id", ranked.front().target.service_id)
            .EndObject();
    }
    out.Member("evaluated_at", evaluated_at);
    out.Key("message");
    if (ranked.empty()) {
        out.String(NoCandidateMessage());
    } else {
        out.Null();
    }
    out.Member("mode", mode);
    out.Key("notes").BeginArray();
    for (const auto& note : notes) {
        out.String(note);
    }
    out.EndArray();
    out.Key("sites").BeginArray();
    for (const auto& verdict : verdicts) {
        WriteVerdict(out, verdict);
    }
    out.EndArray();
    out.EndObject();
    return text;
}

Json PlacementDecision::ToJson() const {
    Json candidates = Json::array();
    int rank = 0;
    for (const auto& candidate : ranked) {
        candidates.push_back(CandidateJson(candidate, ++rank));
    }
    Json sites = Json::array();
    for (const auto& verdict : verdicts) {
        sites.push_back(VerdictJson(verdict));
    }
    Json chosen = nullptr;
    if (!ranked.empty()) {
        chosen = {{"provider_id", ranked.front().target.site_id}, {"service_id", ranked.front().target.service_id}};
    }
    return {
        {"mode", mode},
        {"evaluated_at", evaluated_at},
        {"chosen", chosen},
        {"candidates", candidates},
        {"sites", sites},
        {"notes", notes},
        {"message", ranked.empty() ? Json(NoCandidateMessage()) : Json(nullptr)},
    };
}

Result<PlacementDecision> PlacementDecision::FromJson(const Json& json) {
    if (!json.is_object()) {
        return Error::InvalidArgument("placement record must be a JSON object");
    }
    try {
        PlacementDecision decision;
        decision.mode = json.value("mode", "");
        decision.evaluated_at = json.value("evaluated_at", "");
        decision.notes = json.value("notes", std::vector<std::string>{});
        const Json candidates = json.value("candidates", Json::array());
        const Json sites = json.value("sites", Json::array());
        for (const auto& item : candidates) {
            auto candidate = CandidateFromJson(item);
            if (!candidate) {
                return Error::InvalidArgument("placement record: " + candidate.error().message);
            }
            decision.ranked.push_back(std::move(candidate).value());
        }
        for (const auto& item : sites) {
            decision.verdicts.push_back(VerdictFromJson(item));
        }
        return decision;
    } catch (const Json::exception& e) {
        return Error::InvalidArgument(std::string("placement record is malformed: ") + e.what());
    }
}

std::string PlacementDecision::NoCandidateMessage() const {
    std::string message(kNoCandidate);
    for (const auto& verdict : verdicts) {
        if (verdict.accepted) {
            continue;
        }
        std::string why;
        for (const auto& reason : verdict.reasons) {
            why += (why.empty() ? "" : "; ") + reason.Text();
        }
        message += "\n- " + SiteLabel(verdict) + ": " + (why.empty() ? "not usable" : why);
    }
    if (verdicts.empty()) {
        for (const auto& note : notes) {
            message += "\n- " + note;
        }
    }
    return message;
}

}  // namespace orch::placement
