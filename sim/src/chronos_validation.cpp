// Field-by-field check of Chronos job bodies, after JobDeserializer.scala (mesos/chronos c1348dd).
#include "iso8601.hpp"
#include "sim/chronos_sim.hpp"

#include <functional>
#include <map>
#include <regex>

namespace orch::sim {
namespace {

using FieldCheck = std::function<std::string(const Json&)>;

std::string IsString(const Json& v) {
    return v.is_string() ? "" : "must be a string";
}
std::string IsBool(const Json& v) {
    return v.is_boolean() ? "" : "must be a boolean";
}
std::string IsNonNegative(const Json& v) {
    return v.is_number() && v.get<double>() >= 0 ? "" : "must be a non-negative number";
}
std::string IsInteger(const Json& v) {
    return v.is_number_integer() && v.get<std::int64_t>() >= 0 ? "" : "must be a non-negative integer";
}

std::string IsStringList(const Json& v) {
    if (!v.is_array()) {
        return "must be a list of strings";
    }
    for (const auto& item : v) {
        if (!item.is_string()) {
            return "must be a list of strings";
        }
    }
    return "";
}

std::string IsDuration(const Json& v) {
    if (!v.is_string()) {
        return "must be an ISO 8601 duration string";
    }
    auto parsed = ParseIsoDuration(v.get<std::string>());
    return parsed ? "" : parsed.error().message;
}

std::string IsEnvironment(const Json& v) {
    if (!v.is_array()) {
        return "must be a list of {name, value}";
    }
    for (const auto& item : v) {
        if (!item.is_object() || !item.contains("name") || !item["name"].is_string() ||
            (item.contains("value") && !item["value"].is_string())) {
            return "must be a list of {name, value} with string members";
        }
    }
    return "";
}

std::string IsConstraints(const Json& v) {
    if (!v.is_array()) {
        return "must be a list of [attribute, operator, value]";
    }
    for (const auto& c : v) {
        if (!c.is_array() || c.size() != 3 || !c[0].is_string() || !c[1].is_string() || !c[2].is_string()) {
            return "each constraint must be [attribute, operator, value]";
        }
        const std::string op = c[1].get<std::string>();
        if (op != "EQUALS" && op != "LIKE" && op != "UNLIKE") {
            return "constraint operator '" + op + "' is not one of EQUALS, LIKE, UNLIKE";
        }
    }
    return "";
}

std::string IsVolumes(const Json& v) {
    if (!v.is_array()) {
        return "must be a list";
    }
    for (const auto& vol : v) {
        if (!vol.is_object() || !vol.contains("containerPath") || !vol["containerPath"].is_string()) {
            return "each volume needs a containerPath string";
        }
        if (vol.contains("mode") && vol["mode"] != "RO" && vol["mode"] != "RW") {
            return "volume mode must be RO or RW";
        }
        for (const auto& [key, unused] : vol.items()) {
            if (key != "containerPath" && key != "hostPath" && key != "mode" && key != "external") {
                return "unknown volume field '" + key + "'";
            }
        }
    }
    return "";
}

std::string IsContainer(const Json& v) {
    if (!v.is_object()) {
        return "must be an object";
    }
    static const std::map<std::string, FieldCheck> kFields = {
        {"type",
         [](const Json& t) {
             return t == "DOCKER" || t == "MESOS" ? "" : "must be DOCKER or MESOS";
         }},
        {"image", IsString},
        {"forcePullImage", IsBool},
        {"network", IsString},
        {"networkInfos",
         [](const Json& n) {
             return n.is_array() ? "" : "must be a list";
         }},
        {"volumes", IsVolumes},
        {"parameters",
         [](const Json& p) {
             return p.is_array() ? "" : "must be a list of {key, value}";
         }},
    };
    for (const auto& [key, value] : v.items()) {
        const auto it = kFields.find(key);
        if (it == kFields.end()) {
            return "unknown container field '" + key + "'";
        }
        if (auto problem = it->second(value); !problem.empty()) {
            return key + " " + problem;
        }
    }
    return v.contains("image") ? "" : "image is required";
}

const std::map<std::string, FieldCheck>& KnownFields() {
    static const std::map<std::string, FieldCheck> kFields = {
        {"name", IsString},
        {"command", IsString},
        {"arguments", IsStringList},
        {"shell", IsBool},
        {"schedule", IsString},
        {"scheduleTimeZone", IsString},
        {"parents", IsStringList},
        {"epsilon", IsDuration},
        {"retries", IsInteger},
        {"cpus", IsNonNegative},
        {"mem", IsNonNegative},
        {"disk", IsNonNegative},
        {"gpus", IsNonNegative},
        {"owner", IsString},
        {"ownerName", IsString},
        {"description", IsString},
        {"runAsUser", IsString},
        {"uris", IsStringList},
        {"fetch",
         [](const Json& f) {
             return f.is_array() ? "" : "must be a list";
         }},
        {"environmentVariables", IsEnvironment},
        {"constraints", IsConstraints},
        {"container", IsContainer},
        {"disabled", IsBool},
        {"concurrent", IsBool},
        {"maxCompletionTime", IsInteger},
        {"softError", IsBool},
        {"highPriority", IsBool},
        {"dataJob", IsBool},
        {"executor", IsString},
        {"executorFlags", IsString},
        {"taskInfoData", IsString},
        // Read-only counters a client may echo back; the server ignores them.
        {"successCount", IsInteger},
        {"errorCount", IsInteger},
        {"lastSuccess", IsString},
        {"lastError", IsString},
        {"errorsSinceLastSuccess", IsInteger},
    };
    return kFields;
}

}  // namespace

std::string ValidateChronosJob(const Json& job, bool dependent) {
    if (!job.is_object()) {
        return "job must be a JSON object";
    }
    for (const auto& [key, value] : job.items()) {
        const auto it = KnownFields().find(key);
        if (it == KnownFields().end()) {
            return "unknown field '" + key + "' (upstream Chronos would silently ignore it)";
        }
        if (auto problem = it->second(value); !problem.empty()) {
            return key + " " + problem;
        }
    }
    static const std::regex kName("^[\\w.-]+$");
    if (!job.contains("name") || !std::regex_match(job["name"].get<std::string>(), kName)) {
        return "name is required and may contain only letters, digits, '_', '.' and '-'";
    }
    if (job.contains("schedule") && job.contains("parents")) {
        return "a job has either a schedule or parents, not both";
    }
    if (dependent && (!job.contains("parents") || job["parents"].empty())) {
        return "a dependent job needs at least one parent";
    }
    if (!dependent && !job.contains("schedule")) {
        return "a scheduled job needs a schedule";
    }
    if (job.contains("schedule")) {
        if (auto parsed = ParseIsoSchedule(job["schedule"].get<std::string>()); !parsed) {
            return parsed.error().message;
        }
    }
    if (job.value("gpus", 0.0) > 0 && job.contains("container") &&
        job["container"].value("type", "DOCKER") == "DOCKER") {
        return "GPU resources only work with the Mesos containerizer";
    }
    return "";
}

}  // namespace orch::sim
