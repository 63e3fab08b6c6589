#pragma once

#include "orchestrator/auth/refresh_token_store.hpp"
#include "orchestrator/placement/usage.hpp"
#include "orchestrator/store/pg_pool.hpp"

namespace orch::store {

/// Quota usage from the deployments table (requested totals stored at create/update time).
class PgUsageSource final : public placement::UsageSource {
   public:
    explicit PgUsageSource(PgPool& pool) : pool_(pool) {}
    Result<placement::Usage> ActiveUsage(
        const placement::Requester& requester, const std::string& exclude_deployment_id
    ) override;

   private:
    PgPool& pool_;
};

/// Recent finished attempts per service, for the placement circuit breaker.
class PgSiteHistory final : public placement::SiteHistory {
   public:
    explicit PgSiteHistory(PgPool& pool) : pool_(pool) {}
    std::vector<placement::AttemptOutcome> RecentAttempts(const std::string& service_id, std::size_t limit) override;
    /// One query for all services (a window over attempts_service_recent).
    placement::AttemptsByService RecentAttemptsOf(const std::vector<std::string_view>& service_ids, std::size_t limit)
        override;

   private:
    PgPool& pool_;
};

/// Sealed refresh tokens in oidc_refresh_tokens.
class PgRefreshTokenStore final : public auth::RefreshTokenStore {
   public:
    explicit PgRefreshTokenStore(PgPool& pool) : pool_(pool) {}
    Status Put(const std::string& issuer, const std::string& subject, const std::string& ciphertext) override;
    Result<std::optional<std::string>> Get(const std::string& issuer, const std::string& subject) override;
    Status Remove(const std::string& issuer, const std::string& subject) override;

   private:
    PgPool& pool_;
};

}  // namespace orch::store
