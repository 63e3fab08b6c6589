#include "sim/fault_injector.hpp"

#include <algorithm>
#include <map>

namespace orch::sim {
namespace {

const std::map<std::string, FaultKind>& KindNames() {
    static const std::map<std::string, FaultKind> kNames = {
        {"status", FaultKind::kStatus},
        {"slow", FaultKind::kSlow},
        {"reset", FaultKind::kReset},
        {"malformed", FaultKind::kMalformed},
        {"capacity", FaultKind::kCapacity},
        {"unconfigured", FaultKind::kUnconfigured},
        {"vm_failed", FaultKind::kVmFailed},
    };
    return kNames;
}

std::string KindName(FaultKind kind) {
    for (const auto& [name, k] : KindNames()) {
        if (k == kind) {
            return name;
        }
    }
    return "status";
}

Result<std::string> OptionalString(const Json& rule, const char* key, std::string fallback) {
    const auto it = rule.find(key);
    if (it == rule.end()) {
        return fallback;
    }
    if (!it->is_string()) {
        return Error::InvalidArgument(std::string("fault rule field '") + key + "' must be a string");
    }
    return it->get<std::string>();
}

Result<int> OptionalInt(const Json& rule, const char* key, int fallback, int min, int max) {
    const auto it = rule.find(key);
    if (it == rule.end()) {
        return fallback;
    }
    if (!it->is_number_integer() || it->get<std::int64_t>() < min || it->get<std::int64_t>() > max) {
        return Error::InvalidArgument(
            std::string("fault rule field '") + key + "' must be an integer from " + std::to_string(min) + " to " +
            std::to_string(max)
        );
    }
    return it->get<int>();
}

}  // namespace

Json FaultRule::ToJson() const {
    return {
        {"id", id},
        {"api", api},
        {"method", method},
        {"path", path_prefix},
        {"kind", KindName(kind)},
        {"status", status},
        {"delay_ms", delay.count()},
        {"times", times},
        {"skip", skip},
        {"resource", resource},
        {"hits", hits},
    };
}

Result<FaultRule> ParseFaultRule(const Json& rule) {
    if (!rule.is_object()) {
        return Error::InvalidArgument("a fault rule must be a JSON object");
    }
    static const std::vector<std::string> kKnown = {
        "api", "method", "path", "kind", "status", "delay_ms", "times", "skip", "resource"};
    for (const auto& [key, unused] : rule.items()) {
        if (std::find(kKnown.begin(), kKnown.end(), key) == kKnown.end()) {
            return Error::InvalidArgument("unknown fault rule field '" + key + "'");
        }
    }
    FaultRule out;
    ORCH_ASSIGN_OR_RETURN(out.api, OptionalString(rule, "api", ""));
    if (!out.api.empty() && out.api != "marathon" && out.api != "chronos" && out.api != "kubernetes" &&
        out.api != "im") {
        return Error::InvalidArgument("fault rule 'api' must be marathon, chronos, kubernetes or im");
    }
    ORCH_ASSIGN_OR_RETURN(out.method, OptionalString(rule, "method", ""));
    ORCH_ASSIGN_OR_RETURN(out.path_prefix, OptionalString(rule, "path", ""));
    ORCH_ASSIGN_OR_RETURN(const std::string kind, OptionalString(rule, "kind", "status"));
    const auto kind_it = KindNames().find(kind);
    if (kind_it == KindNames().end()) {
        return Error::InvalidArgument("fault rule 'kind' must be status, slow, reset, malformed or capacity");
    }
    out.kind = kind_it->second;
    ORCH_ASSIGN_OR_RETURN(out.status, OptionalInt(rule, "status", 503, 100, 599));
    ORCH_ASSIGN_OR_RETURN(const int delay, OptionalInt(rule, "delay_ms", 0, 0, 600'000));
    out.delay = std::chrono::milliseconds(delay);
    ORCH_ASSIGN_OR_RETURN(out.times, OptionalInt(rule, "times", 1, -1, 1'000'000));
    ORCH_ASSIGN_OR_RETURN(out.skip, OptionalInt(rule, "skip", 0, 0, 1'000'000));
    ORCH_ASSIGN_OR_RETURN(out.resource, OptionalString(rule, "resource", "all"));
    if (out.resource != "all" && out.resource != "cpus" && out.resource != "mem" && out.resource != "gpus") {
        return Error::InvalidArgument("fault rule 'resource' must be cpus, mem, gpus or all");
    }
    if (out.kind == FaultKind::kSlow && out.delay.count() == 0) {
        return Error::InvalidArgument("a slow fault needs delay_ms > 0");
    }
    return out;
}

Result<FaultRule> FaultInjector::Add(const Json& rule) {
    auto parsed = ParseFaultRule(rule);
    if (!parsed) {
        return parsed;
    }
    // Bounded so a looping test cannot grow the list without end.
    if (rules_.size() >= 256) {
        return Error::ResourceExhausted("at most 256 fault rules may be active; clear them first");
    }
    parsed->id = next_id_++;
    rules_.push_back(*parsed);
    return parsed;
}

Json FaultInjector::ToJson() const {
    Json out = Json::array();
    for (const auto& rule : rules_) {
        out.push_back(rule.ToJson());
    }
    return out;
}

std::optional<FaultRule> FaultInjector::MatchRequest(
    const std::string& api, const std::string& method, const std::string& path
) {
    for (auto& rule : rules_) {
        if (rule.kind == FaultKind::kCapacity || (!rule.api.empty() && rule.api != api) ||
            (!rule.method.empty() && rule.method != method) || path.rfind(rule.path_prefix, 0) != 0) {
            continue;
        }
        if (rule.times == 0) {
            continue;
        }
        if (rule.skip > 0) {
            --rule.skip;
            continue;
        }
        if (rule.times > 0) {
            --rule.times;
        }
        ++rule.hits;
        return rule;
    }
    return std::nullopt;
}

std::set<std::string> FaultInjector::ExhaustedResources(const std::string& api) const {
    std::set<std::string> out;
    for (const auto& rule : rules_) {
        if (rule.kind == FaultKind::kCapacity && (rule.api.empty() || rule.api == api)) {
            out.insert(rule.resource);
        }
    }
    return out;
}

}  // namespace orch::sim
