#include "orchestrator/schedule/file_expression.hpp"

namespace orch::schedule {

Result<std::shared_ptr<const Regex>> CompileFileExpression(const std::string& expression) {
    if (expression.size() > kMaxFileExpressionBytes) {
        return Error::InvalidArgument(
            "fileExpression is longer than " + std::to_string(kMaxFileExpressionBytes) + " bytes"
        );
    }
    auto compiled = Regex::Compile(expression, {kMaxFileExpressionBytes, kMaxFileExpressionProgram});
    if (!compiled) {
        return Error::InvalidArgument("fileExpression is not a valid regular expression: " + compiled.error().message);
    }
    return std::make_shared<const Regex>(std::move(*compiled));
}

bool FileExpressionCache::Matches(const std::string& expression, const std::string& did) {
    if (did.size() > kMaxFileNameBytes) {
        return false;
    }
    const auto regex = Get(expression);
    return regex != nullptr && regex->FullMatch(did);
}

std::shared_ptr<const Regex> FileExpressionCache::Get(const std::string& expression) {
    {
        std::lock_guard lock(mutex_);
        if (const auto it = entries_.find(expression); it != entries_.end()) {
            return it->second;
        }
    }
    // Compiled outside the lock: other lookups need not wait.
    auto compiled = CompileFileExpression(expression);
    std::shared_ptr<const Regex> regex = compiled ? *compiled : nullptr;
    std::lock_guard lock(mutex_);
    if (entries_.size() < capacity_) {
        entries_.emplace(expression, regex);
    }
    return regex;
}

}  // namespace orch::schedule
