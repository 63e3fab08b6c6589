#pragma once

#include <cstddef>
#include <list>
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

/// Compiled expressions by text, bounded (least recently used dropped), thread-safe: the matcher
/// sees the same few expressions for every notification.
class FileExpressionCache {
public:
    explicit FileExpressionCache(std::size_t capacity = 1024) : capacity_(capacity) {}

    /// Whether "scope:name" matches `expression`; an expression that does not compile matches nothing.
    bool Matches(const std::string& expression, const std::string& did);

private:
    std::shared_ptr<const std::regex> Get(const std::string& expression);

    const std::size_t capacity_;
    std::mutex mutex_;
    std::list<std::string> order_;  ///< most recently used first
    struct Entry {
        std::shared_ptr<const std::regex> regex;  ///< null: does not compile
        std::list<std::string>::iterator position;
    };
    std::unordered_map<std::string, Entry> entries_;
};

}  // namespace orch::schedule
