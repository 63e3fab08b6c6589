#include "orchestrator/schedule/file_expression.hpp"

namespace orch::schedule {

Result<std::shared_ptr<const std::regex>> CompileFileExpression(const std::string& expression) {
    if (expression.size() > kMaxFileExpressionBytes) {
        return Error::InvalidArgument("fileExpression is longer than " + std::to_string(kMaxFileExpressionBytes) +
                                      " bytes");
    }
    try {
        return std::make_shared<const std::regex>(expression, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {  // the library's only way to report a bad pattern
        return Error::InvalidArgument("fileExpression is not a valid regular expression: " + std::string(e.what()));
    }
}

bool FileExpressionCache::Matches(const std::string& expression, const std::string& did) {
    if (did.size() > kMaxFileNameBytes) {
        return false;
    }
    const auto regex = Get(expression);
    if (!regex) {
        return false;
    }
    try {
        return std::regex_match(did, *regex);
    } catch (const std::regex_error&) {  // complexity/stack limits of the matcher
        return false;
    }
}

std::shared_ptr<const std::regex> FileExpressionCache::Get(const std::string& expression) {
    {
        std::lock_guard lock(mutex_);
        if (const auto it = entries_.find(expression); it != entries_.end()) {
            return it->second;
        }
    }
    // Compiled outside the lock: it takes ~60 us and other lookups need not wait.
    auto compiled = CompileFileExpression(expression);
    std::shared_ptr<const std::regex> regex = compiled ? *compiled : nullptr;
    std::lock_guard lock(mutex_);
    if (entries_.size() < capacity_) {
        entries_.emplace(expression, regex);
    }
    return regex;
}

}  // namespace orch::schedule
