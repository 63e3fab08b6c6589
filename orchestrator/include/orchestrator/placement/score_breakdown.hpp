#pragma once

#include "common/json.hpp"
#include "common/json_writer.hpp"

#include <cstddef>
#include <optional>
#include <string_view>
#include <variant>

namespace orch::placement {

/// The gpu-aware ranker's components for one service (docs/placement.md, "Ranking").
struct GpuAwareScore {
    std::optional<double> sla_weight;
    double fit = 0;
    double availability = 0;
    double success_rate = 0;
    double latency = 0;
    std::optional<double> response_ms;
    std::size_t recent_attempts = 0;
    std::size_t recent_failures = 0;
    bool breaker_open = false;
    double score = 0;
};

/// The original Cloud Provider Ranker's figures for one service (indigo mode).
struct IndigoScore {
    std::optional<double> sla_weight;
    std::optional<double> sla_score;
    std::optional<double> metrics_score;
    double parent_score = 0;
    double total_score = 0;
    bool ranked = false;
    int indigo_rank = -1;
};

/// How a service's score was made. Kept as plain numbers and turned into JSON only when the
/// decision is reported: a placement ranks thousands of services, and building (then freeing) a
/// JSON object per service cost more than ranking them. Nothing is lost: ToJson() gives every
/// field, for every service, whenever asked.
class ScoreBreakdown {
   public:
    ScoreBreakdown() = default;
    explicit ScoreBreakdown(const GpuAwareScore& score) : parts_(score) {}
    explicit ScoreBreakdown(const IndigoScore& score) : parts_(score) {}
    explicit ScoreBreakdown(Json json) : parts_(std::move(json)) {}  ///< read back from storage

    bool empty() const { return std::holds_alternative<std::monostate>(parts_); }
    /// The breakdown record ({} when the service was never scored).
    Json ToJson() const;
    /// The same record written as text (members in ToJson's order).
    void WriteJson(JsonWriter& out) const;
    /// One field of ToJson() (throws like Json::at when absent).
    Json at(std::string_view key) const { return ToJson().at(std::string(key)); }

   private:
    std::variant<std::monostate, GpuAwareScore, IndigoScore, Json> parts_;
};

}  // namespace orch::placement
