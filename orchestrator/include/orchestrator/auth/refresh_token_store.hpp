#pragma once

#include "common/result.hpp"

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

namespace orch::auth {

/// Where the encrypted refresh tokens live, one per user (issuer, subject). Values are already
/// sealed by TokenCipher: implementations store opaque text and never see a token in clear.
///
/// The PostgreSQL implementation is expected to use:
///   CREATE TABLE oidc_refresh_tokens (
///     issuer      TEXT NOT NULL,
///     subject     TEXT NOT NULL,
///     ciphertext  TEXT NOT NULL,
///     updated_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
///     PRIMARY KEY (issuer, subject));
/// with Put as INSERT ... ON CONFLICT (issuer, subject) DO UPDATE.
class RefreshTokenStore {
   public:
    virtual ~RefreshTokenStore() = default;
    virtual Status Put(const std::string& issuer, const std::string& subject, const std::string& ciphertext) = 0;
    virtual Result<std::optional<std::string>> Get(const std::string& issuer, const std::string& subject) = 0;
    virtual Status Remove(const std::string& issuer, const std::string& subject) = 0;
};

/// For tests and the local demo.
class InMemoryRefreshTokenStore final : public RefreshTokenStore {
   public:
    Status Put(const std::string& issuer, const std::string& subject, const std::string& ciphertext) override;
    Result<std::optional<std::string>> Get(const std::string& issuer, const std::string& subject) override;
    Status Remove(const std::string& issuer, const std::string& subject) override;

   private:
    std::mutex mutex_;
    std::map<std::pair<std::string, std::string>, std::string> rows_;
};

}  // namespace orch::auth
