#include "orchestrator/auth/token_keeper.hpp"

#include "common/log.hpp"

#include <algorithm>
#include <set>
#include <sstream>

namespace orch::auth {
namespace {

constexpr std::string_view kTokenExchangeGrant = "urn:ietf:params:oauth:grant-type:token-exchange";
constexpr std::string_view kAccessTokenType = "urn:ietf:params:oauth:token-type:access_token";
constexpr std::int64_t kDefaultLifetimeSeconds = 300;  // when the issuer does not say (expires_in)
constexpr std::size_t kMaxSlots = 10000;               // users with a cached downstream token

std::string Join(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) {
        out += (out.empty() ? "" : " ") + item;
    }
    return out;
}

std::vector<std::string> MissingScopes(const std::vector<std::string>& wanted, const std::string& granted_text) {
    std::set<std::string> granted;
    std::istringstream in(granted_text);
    for (std::string scope; in >> scope;) {
        granted.insert(scope);
    }
    std::vector<std::string> missing;
    for (const auto& scope : wanted) {
        if (granted.count(scope) == 0) {
            missing.push_back(scope);
        }
    }
    return missing;
}

void AddScopeAndAudience(FormFields& form, const IssuerConfig& config) {
    if (!config.scopes.empty()) {
        form.emplace_back("scope", Join(config.scopes));
    }
    if (!config.exchange_audience.empty()) {
        form.emplace_back("audience", config.exchange_audience);
    }
}

std::string Who(const std::string& issuer, const std::string& subject) {
    return subject + "@" + issuer;
}

}  // namespace

TokenKeeper::TokenKeeper(
    std::shared_ptr<IssuerDirectory> issuers,
    RefreshTokenStore& store,
    TokenCipher cipher,
    std::chrono::seconds refresh_margin
)
    : issuers_(std::move(issuers)), store_(store), cipher_(std::move(cipher)), refresh_margin_(refresh_margin) {}

std::shared_ptr<TokenKeeper::Slot> TokenKeeper::SlotFor(const std::string& issuer, const std::string& subject) {
    const std::lock_guard lock(slots_mutex_);
    if (slots_.size() >= kMaxSlots) {
        // Bounded: drop the cached tokens nobody is using right now (they are refreshed on demand).
        std::erase_if(slots_, [](const auto& entry) { return entry.second.use_count() == 1; });
    }
    auto& slot = slots_[{issuer, subject}];
    if (!slot) {
        slot = std::make_shared<Slot>();
    }
    return slot;
}

Result<IssuerContext*> TokenKeeper::IssuerFor(const std::string& issuer) const {
    IssuerContext* context = issuers_->Find(issuer);
    if (context == nullptr) {
        return Error::Unauthenticated(
            "issuer '" + issuer + "' is not a trusted issuer: no token can be obtained for its users"
        );
    }
    return context;
}

Status TokenKeeper::Store(const std::string& issuer, const std::string& subject, std::string_view refresh_token) {
    auto sealed = cipher_.Seal(refresh_token, RefreshTokenContext(issuer, subject));
    if (!sealed) {
        return std::move(sealed).error();
    }
    return store_.Put(issuer, subject, *sealed);
}

Result<std::optional<std::string>> TokenKeeper::Load(const std::string& issuer, const std::string& subject) {
    auto row = store_.Get(issuer, subject);
    if (!row || !row->has_value()) {
        return row;
    }
    auto opened = cipher_.Open(**row, RefreshTokenContext(issuer, subject));
    if (!opened) {
        return std::move(opened).error();
    }
    return std::optional<std::string>(std::move(*opened));
}

void TokenKeeper::Remember(Slot& slot, const std::string& access_token, std::int64_t expires_in) {
    const std::int64_t lifetime = expires_in > 0 ? expires_in : kDefaultLifetimeSeconds;
    slot.access_token = access_token;
    slot.lifetime = std::chrono::seconds(lifetime);
    slot.expires_at = issuers_->clock().steady_now() + slot.lifetime;
}

Status TokenKeeper::StoredTokenIsActive(IssuerContext& issuer, const std::string& subject, bool& active) {
    active = false;
    auto stored = Load(issuer.config.issuer, subject);
    if (!stored) {
        // Undecryptable (e.g. the key changed): treat as absent and replace it.
        ORCH_LOG_WARN(
            "stored refresh token unusable; exchanging again",
            {{"issuer", issuer.config.issuer}, {"subject", subject}, {"error", stored.error().message}}
        );
        return Ok();
    }
    if (!stored->has_value()) {
        return Ok();
    }
    if (issuer.config.introspection == IntrospectionUse::kNever) {
        active = true;  // nothing to ask; the first refresh will tell
        return Ok();
    }
    auto answer = issuer.client.Introspect(**stored, "refresh_token");
    if (!answer) {
        ORCH_LOG_WARN(
            "cannot introspect the stored refresh token; keeping it",
            {{"issuer", issuer.config.issuer}, {"error", answer.error().message}}
        );
        active = true;
        return Ok();
    }
    const auto it = answer->find("active");
    active = it != answer->end() && it->is_boolean() && it->get<bool>();
    return Ok();
}

Status TokenKeeper::Enroll(const Principal& principal, std::string_view access_token) {
    if (principal.local) {
        return Ok();
    }
    auto issuer = IssuerFor(principal.issuer);
    if (!issuer) {
        return std::move(issuer).error();
    }
    if (!(*issuer)->config.token_exchange) {
        return Ok();
    }
    bool active = false;
    ORCH_RETURN_IF_ERROR(StoredTokenIsActive(**issuer, principal.subject, active));
    if (active) {
        return Ok();
    }
    return Exchange(**issuer, principal, access_token);
}

Status TokenKeeper::Exchange(IssuerContext& issuer, const Principal& principal, std::string_view access_token) {
    FormFields form{
        {"grant_type", std::string(kTokenExchangeGrant)},
        {"subject_token", std::string(access_token)},
        {"subject_token_type", std::string(kAccessTokenType)}};
    AddScopeAndAudience(form, issuer.config);
    auto grant = issuer.client.RequestToken(form);
    if (!grant) {
        return std::move(grant).error();
    }
    if (grant->refresh_token.empty()) {
        return Error::PermissionDenied(
            "the issuer " + issuer.config.issuer +
            " returned no refresh token on token exchange (is offline_access allowed for the orchestrator's client?)"
        );
    }
    if (const auto missing = MissingScopes(issuer.config.scopes, grant->scope);
        !grant->scope.empty() && !missing.empty()) {
        return Error::PermissionDenied(
            "Not all the required scopes have been granted (missing: " + Join(missing) + ")"
        );
    }
    ORCH_RETURN_IF_ERROR(Store(issuer.config.issuer, principal.subject, grant->refresh_token));
    auto slot = SlotFor(issuer.config.issuer, principal.subject);
    {
        const std::lock_guard lock(slot->mutex);
        Remember(*slot, grant->access_token, grant->expires_in);
    }
    ORCH_LOG_INFO(
        "refresh token obtained by token exchange", {{"issuer", issuer.config.issuer}, {"subject", principal.subject}}
    );
    return Ok();
}

Status TokenKeeper::EnrollRefreshToken(const Principal& principal, std::string_view refresh_token) {
    if (principal.local) {
        return Ok();
    }
    auto issuer = IssuerFor(principal.issuer);
    if (!issuer) {
        return std::move(issuer).error();
    }
    ORCH_RETURN_IF_ERROR(Store(principal.issuer, principal.subject, refresh_token));
    auto slot = SlotFor(principal.issuer, principal.subject);
    const std::lock_guard lock(slot->mutex);
    slot->access_token.clear();
    auto fresh = Refresh(**issuer, *slot, principal.subject);
    if (!fresh) {
        static_cast<void>(store_.Remove(principal.issuer, principal.subject));
        return std::move(fresh).error();
    }
    return Ok();
}

Result<std::string> TokenKeeper::AccessTokenFor(const std::string& issuer, const std::string& subject) {
    auto context = IssuerFor(issuer);
    if (!context) {
        return std::move(context).error();
    }
    auto slot = SlotFor(issuer, subject);
    const std::lock_guard lock(slot->mutex);  // single flight per user
    const auto margin = std::min<std::chrono::seconds>(refresh_margin_, slot->lifetime / 2);
    if (!slot->access_token.empty() && issuers_->clock().steady_now() + margin < slot->expires_at) {
        return slot->access_token;
    }
    return Refresh(**context, *slot, subject);
}

Result<std::string> TokenKeeper::Refresh(IssuerContext& issuer, Slot& slot, const std::string& subject) {
    const std::string& iss = issuer.config.issuer;
    auto stored = Load(iss, subject);
    if (!stored) {
        return std::move(stored).error();
    }
    if (!stored->has_value()) {
        return Error::Unauthenticated(
            "no refresh token is stored for " + Who(iss, subject) +
            ": the user has to call the API again with a valid token"
        );
    }
    FormFields form{{"grant_type", "refresh_token"}, {"refresh_token", **stored}};
    AddScopeAndAudience(form, issuer.config);
    auto grant = issuer.client.RequestToken(form);
    if (!grant) {
        if (grant.error().code == ErrorCode::kUnauthenticated) {
            return Error::Unauthenticated(
                "the refresh token of " + Who(iss, subject) + " was rejected; the user has to log in again (" +
                grant.error().message + ")"
            );
        }
        return std::move(grant).error();
    }
    if (!grant->refresh_token.empty() && grant->refresh_token != **stored) {
        ORCH_RETURN_IF_ERROR(Store(iss, subject, grant->refresh_token));  // rotation: keep the newest
    }
    Remember(slot, grant->access_token, grant->expires_in);
    ORCH_LOG_INFO(
        "access token refreshed for downstream calls",
        {{"issuer", iss}, {"subject", subject}, {"expires_in", grant->expires_in}}
    );
    return slot.access_token;
}

void TokenKeeper::Invalidate(const std::string& issuer, const std::string& subject) {
    auto slot = SlotFor(issuer, subject);
    const std::lock_guard lock(slot->mutex);
    slot->access_token.clear();
}

Status TokenKeeper::Forget(const std::string& issuer, const std::string& subject) {
    auto context = IssuerFor(issuer);
    if (context) {
        if (auto stored = Load(issuer, subject); stored && stored->has_value()) {
            if (auto revoked = (*context)->client.Revoke(**stored, "refresh_token"); !revoked) {
                ORCH_LOG_WARN(
                    "refresh token revocation failed",
                    {{"issuer", issuer}, {"subject", subject}, {"error", revoked.error().message}}
                );
            }
        }
    }
    {
        const std::lock_guard lock(slots_mutex_);
        slots_.erase({issuer, subject});
    }
    return store_.Remove(issuer, subject);
}

Result<http::ClientResponse> TokenKeeper::SendAsUser(
    http::Client& http, http::ClientRequest request, const std::string& issuer, const std::string& subject
) {
    const std::size_t header_index = request.headers.size();
    request.headers.emplace_back("Authorization", "");
    for (int attempt = 0;; ++attempt) {
        auto token = AccessTokenFor(issuer, subject);
        if (!token) {
            return std::move(token).error();
        }
        request.headers[header_index].second = "Bearer " + *token;
        auto response = http.Send(request);
        if (!response || response->status != 401 || attempt == 1) {
            return response;
        }
        ORCH_LOG_INFO(
            "downstream call answered 401; refreshing the user's token and retrying once",
            {{"issuer", issuer}, {"subject", subject}}
        );
        Invalidate(issuer, subject);
    }
}

}  // namespace orch::auth
