#pragma once

#include "common/regex.hpp"
#include "common/result.hpp"

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace orch::schedule {

/// Bounds on what one match may cost. A notification is matched against every RUNNING schedule,
/// so a single expression's work is kept small: at most kMaxFileExpressionProgram NFA steps per
/// byte of a name of at most kMaxFileNameBytes (a few milliseconds in the worst case).
inline constexpr std::size_t kMaxFileExpressionBytes = 1024;
inline constexpr std::size_t kMaxFileExpressionProgram = 4096;
inline constexpr std::size_t kMaxFileNameBytes = 1024;

/// A schedule's fileExpression: the original's Java regex, compiled for the linear-time matcher
/// (common/regex.hpp: no back-references or look-around, which Rucio expressions do not use) and
/// matched against the whole "scope:name" (Java's Matcher.matches()). kInvalidArgument when it
/// does not compile or is over the bounds above. Never std::regex: its backtracking takes hours on
/// patterns like `(.+)+!` against an ordinary 40-byte name.
Result<std::shared_ptr<const Regex>> CompileFileExpression(const std::string& expression);

/// Compiled expressions by text, thread-safe: every notification is matched against every
/// RUNNING schedule, so compiling once matters (bench/schedules: ~30x). Bounded: once `capacity`
/// expressions are kept, further ones are compiled per call and not kept (at most ~50 KB each, so
/// the default keeps memory under ~50 MB). No eviction on purpose: a notification scans all
/// schedules in the same order, which defeats LRU entirely (every entry evicted before its next
/// use), while keeping the first `capacity` still hits on those. Schedules are never changed or
/// deleted, so kept entries do not go stale.
class FileExpressionCache {
   public:
    explicit FileExpressionCache(std::size_t capacity = 1024) : capacity_(capacity) {}

    /// Whether "scope:name" matches `expression`; an expression that does not compile matches nothing.
    bool Matches(const std::string& expression, const std::string& did);

   private:
    std::shared_ptr<const Regex> Get(const std::string& expression);

    const std::size_t capacity_;
    std::mutex mutex_;
    std::unordered_map<std::string, std::shared_ptr<const Regex>> entries_;  ///< null: does not compile
};

}  // namespace orch::schedule
