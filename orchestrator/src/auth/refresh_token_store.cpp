#include "orchestrator/auth/refresh_token_store.hpp"

namespace orch::auth {

Status InMemoryRefreshTokenStore::Put(
    const std::string& issuer, const std::string& subject, const std::string& ciphertext
) {
    const std::lock_guard lock(mutex_);
    rows_[{issuer, subject}] = ciphertext;
    return Ok();
}

Result<std::optional<std::string>> InMemoryRefreshTokenStore::Get(
    const std::string& issuer, const std::string& subject
) {
    const std::lock_guard lock(mutex_);
    const auto it = rows_.find({issuer, subject});
    if (it == rows_.end()) {
        return std::optional<std::string>();
    }
    return std::optional<std::string>(it->second);
}

Status InMemoryRefreshTokenStore::Remove(const std::string& issuer, const std::string& subject) {
    const std::lock_guard lock(mutex_);
    rows_.erase({issuer, subject});
    return Ok();
}

}  // namespace orch::auth
