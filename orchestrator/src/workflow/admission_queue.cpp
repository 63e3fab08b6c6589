#include "orchestrator/workflow/admission_queue.hpp"

namespace orch::workflow {

Json WaitingToJson(const WaitingRequest& request) {
    const auto since = std::chrono::duration_cast<std::chrono::milliseconds>(request.queued_at.time_since_epoch());
    return Json{
        {"group", request.group},
        {"priority", request.priority},
        {"since", since.count()},
        {"gpus", request.demand.gpus},
        {"cpus", request.demand.cpus},
        {"ram_mb", request.demand.ram_mb}};
}

std::optional<WaitingRequest> WaitingFromJson(const std::string& deployment_id, const Json& record) {
    // Written only by WaitingToJson, but read from the database: a record of another shape is
    // skipped rather than trusted.
    if (!record.is_object() || !record.contains("group") || !record["group"].is_string() || !record.contains("since") ||
        !record["since"].is_number_integer()) {
        return std::nullopt;
    }
    const auto number = [&](const char* key) {
        const auto it = record.find(key);
        return it != record.end() && it->is_number() ? it->get<double>() : 0.0;
    };
    WaitingRequest w;
    w.deployment_id = deployment_id;
    w.group = record["group"].get<std::string>();
    w.priority = static_cast<int>(number("priority"));
    w.queued_at = std::chrono::system_clock::time_point(std::chrono::milliseconds(record["since"].get<std::int64_t>()));
    w.demand = ShareVector{number("gpus"), number("cpus"), number("ram_mb")};
    return w;
}

}  // namespace orch::workflow
