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

}  // namespace

Json ScoreBreakdown::ToJson() const {
    if (const auto* gpu = std::get_if<GpuAwareScore>(&parts_)) {
        return GpuAwareJson(*gpu);
    }
    if (const auto* json = std::get_if<Json>(&parts_)) {
        return json->is_null() ? Json::object() : *json;
    }
    return Json::object();
}

}  // namespace orch::placement
