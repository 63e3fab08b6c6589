#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <regex>
#include <string>
#include <unordered_map>

#include "common/result.hpp"

namespace orch::schedule {

/// Bounds that keep std::regex (recursive, backtracking) away from stack exhaustion.
inline constexpr std::size_t kMaxFileExpressionBytes = 1024;
inline constexpr std::size_t kMaxFileNameBytes = 1024;

/// A schedule's fileExpression: the original's Java regex, compiled here as ECMAScript and matched
/// against the whole "scope:name" (Java's Matcher.matches()). kInvalidArgument when it does not compile.
Result<std::shared_ptr<const std::regex>> CompileFileExpression(const std::string& expression);

/// Compiled expressions by text, thread-safe: every notification is matched against every
/// RUNNING schedule, so compiling once matters (bench/schedules: ~30x). Bounded: once `capacity`
/// expressions are kept, further ones are compiled per call and not kept. No eviction on purpose:
/// a notification scans all schedules in the same order, which defeats LRU entirely (every entry
/// evicted before its next use), while keeping the first `capacity` still hits on those. Schedules
/// are never changed or deleted, so kept entries do not go stale.
class FileExpressionCache {
public:
    explicit FileExpressionCache(std::size_t capacity = 4096) : capacity_(capacity) {}

    /// Whether "scope:name" matches `expression`; an expression that does not compile matches nothing.
    bool Matches(const std::string& expression, const std::string& did);

private:
    std::shared_ptr<const std::regex> Get(const std::string& expression);

    const std::size_t capacity_;
    std::mutex mutex_;
    std::unordered_map<std::string, std::shared_ptr<const std::regex>> entries_;  ///< null: does not compile
};

}  // namespace orch::schedule
