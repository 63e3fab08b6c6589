#include "orchestrator/placement/score_breakdown.hpp"

namespace orch::placement {
namespace {

Json Optional(const std::optional<double>& value) {
    return value ? Json(*value) : Json(nullptr);
}

Json GpuAwareJson(const GpuAwareScore& s) {
    return {
        {"sla_weight", Optional(s.sla_weight)},
        {"fit", s.fit},
        {"availability", s.availability},
        {"success_rate", s.success_rate},
        {"latency", s.latency},
        {"response_ms", Optional(s.response_ms)},
        {"recent_attempts", s.recent_attempts},
        {"recent_failures", s.recent_failures},
        {"circuit_breaker", s.breaker_open ? "open" : "closed"},
        {"score", s.score},
    };
}

Json IndigoJson(const IndigoScore& s) {
    return {
        {"sla_weight", Optional(s.sla_weight)},
        {"sla_score", Optional(s.sla_score)},
        {"metrics_score", Optional(s.metrics_score)},
        {"parent_score", s.parent_score},
        {"total_score", s.total_score},
        {"ranked", s.ranked},
        {"indigo_rank", s.indigo_rank},
    };
}

void WriteOptional(JsonWriter& out, const std::optional<double>& value) {
    if (value) {
        out.Double(*value);
    } else {
        out.Null();
    }
}

// Keys in nlohmann's (sorted) order, so the text reads like ToJson().dump().
void WriteIndigo(JsonWriter& out, const IndigoScore& s) {
    out.BeginObject();
    out.Member("indigo_rank", static_cast<std::int64_t>(s.indigo_rank));
    WriteOptional(out.Key("metrics_score"), s.metrics_score);
    out.Key("parent_score").Double(s.parent_score);
    out.Key("ranked").Bool(s.ranked);
    WriteOptional(out.Key("sla_score"), s.sla_score);
    WriteOptional(out.Key("sla_weight"), s.sla_weight);
    out.Key("total_score").Double(s.total_score);
    out.EndObject();
}

}  // namespace

void ScoreBreakdown::WriteJson(JsonWriter& out) const {
    if (const auto* indigo = std::get_if<IndigoScore>(&parts_)) {
        WriteIndigo(out, *indigo);
        return;
    }
    const auto* s = std::get_if<GpuAwareScore>(&parts_);
    if (s == nullptr) {
        out.Value(ToJson());
        return;
    }
    out.BeginObject();
    out.Key("availability").Double(s->availability);
    out.Member("circuit_breaker", s->breaker_open ? "open" : "closed");
    out.Key("fit").Double(s->fit);
    out.Key("latency").Double(s->latency);
    out.Member("recent_attempts", static_cast<std::int64_t>(s->recent_attempts));
    out.Member("recent_failures", static_cast<std::int64_t>(s->recent_failures));
    WriteOptional(out.Key("response_ms"), s->response_ms);
    out.Key("score").Double(s->score);
    WriteOptional(out.Key("sla_weight"), s->sla_weight);
    out.Key("success_rate").Double(s->success_rate);
    out.EndObject();
}

Json ScoreBreakdown::ToJson() const {
    if (const auto* gpu = std::get_if<GpuAwareScore>(&parts_)) {
        return GpuAwareJson(*gpu);
    }
    if (const auto* indigo = std::get_if<IndigoScore>(&parts_)) {
        return IndigoJson(*indigo);
    }
    if (const auto* json = std::get_if<Json>(&parts_)) {
        return json->is_null() ? Json::object() : *json;
    }
    return Json::object();
}

}  // namespace orch::placement
