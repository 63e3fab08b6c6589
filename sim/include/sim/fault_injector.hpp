#pragma once

#include "common/json.hpp"
#include "common/result.hpp"

#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace orch::sim {

enum class FaultKind {
    kStatus,        ///< answer with `status` and the API's own error body
    kSlow,          ///< wait `delay_ms`, then answer normally
    kReset,         ///< close the connection without answering
    kMalformed,     ///< answer normally but with a truncated, unparsable JSON body
    kCapacity,      ///< the API's cluster behaves as if `resource` were used up (until cleared)
    kUnconfigured,  ///< IM: the infrastructure this create makes ends `unconfigured` (Ansible fails)
    kVmFailed,      ///< IM: the VMs of the infrastructure this create makes end `failed`
};

/// One rule. Request rules match on API, method and path prefix; the first `skip` matches pass,
/// the next `times` (-1 = unlimited) are hit. Capacity rules affect scheduling, not requests.
struct FaultRule {
    int id = 0;
    std::string api;          ///< "marathon", "chronos", "kubernetes", "im" or "" (any)
    std::string method;       ///< "" = any
    std::string path_prefix;  ///< "" = any
    FaultKind kind = FaultKind::kStatus;
    int status = 503;
    std::chrono::milliseconds delay{0};
    int times = 1;
    int skip = 0;
    std::string resource = "all";  ///< capacity: "cpus", "mem", "gpus" or "all"
    int hits = 0;

    Json ToJson() const;
};

/// Parses a rule: {"api","method","path","kind": "status|slow|reset|malformed|capacity",
/// "status","delay_ms","times","skip","resource"}; errors name the field.
Result<FaultRule> ParseFaultRule(const Json& rule);

/// The active fault rules. Not thread-safe: the owner serialises access.
class FaultInjector {
   public:
    Result<FaultRule> Add(const Json& rule);
    void Clear() { rules_.clear(); }
    Json ToJson() const;

    /// The request rule hit by this request, if any (consumes one of its `times`).
    std::optional<FaultRule> MatchRequest(const std::string& api, const std::string& method, const std::string& path);
    /// Resources an active capacity rule declares used up for `api`.
    std::set<std::string> ExhaustedResources(const std::string& api) const;

   private:
    std::vector<FaultRule> rules_;
    int next_id_ = 1;
};

}  // namespace orch::sim
