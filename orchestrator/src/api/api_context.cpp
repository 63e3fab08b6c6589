#include "orchestrator/api/api_context.hpp"

#include <algorithm>
#include <charconv>

#include "common/uuid.hpp"

#include "orchestrator/auth/www_authenticate.hpp"

namespace orch::api {
namespace {

int ParseIntOr(const std::optional<std::string>& text, int fallback) {
    if (!text || text->empty()) {
        return fallback;
    }
    int value = 0;
    const auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
    return ec == std::errc() && ptr == text->data() + text->size() ? value : fallback;
}

}  // namespace

server::Handler Wrap(ApiContext& ctx, ApiHandler fn) {
    return [&ctx, fn](const server::Request& request) {
        auto result = fn(ctx, request);
        return result ? std::move(*result) : ErrorResponse(result.error());
    };
}

server::Response ErrorResponse(const Error& error) {
    auto response = server::Response::Error(error);
    if (auto header = auth::WwwAuthenticateFor(error)) {
        response.WithHeader("WWW-Authenticate", *header);
    }
    if (error.code == ErrorCode::kConflict && error.message.find("concurrent update") != std::string::npos) {
        response.WithHeader("Retry-After", "0");
    }
    return response;
}

Result<auth::Principal> Authorize(ApiContext& ctx, const server::Request& request, auth::Access access) {
    ORCH_ASSIGN_OR_RETURN(auth::Principal principal, ctx.authenticator.Authenticate(request.Header("Authorization")));
    ORCH_RETURN_IF_ERROR(auth::RequireScopes(principal, access, ctx.auth_config.scopes));
    return principal;
}

std::optional<auth::Owner> OwnerOf(const domain::Deployment& d) {
    if (!d.owner) {
        return std::nullopt;
    }
    return auth::Owner{d.owner->issuer, d.owner->subject};
}

Result<domain::Deployment> LoadVisible(ApiContext& ctx, const auth::Principal& principal, const std::string& id,
                                       bool owner_only) {
    const Error not_found = Error::NotFound("The deployment <" + id + "> doesn't exist");
    if (!LooksLikeUuid(id)) {
        return not_found;
    }
    ORCH_ASSIGN_OR_RETURN(auto found, ctx.store.Get(id));
    if (!found || !auth::IsVisibleTo(principal, OwnerOf(*found))) {
        return not_found;
    }
    if (owner_only) {
        ORCH_RETURN_IF_ERROR(auth::CheckOwnership(principal, OwnerOf(*found), ctx.auth_config.admins_operate_on_any));
    }
    return std::move(*found);
}

Result<Paging> ParsePaging(const server::Request& request) {
    Paging p;
    p.page = std::max(0, ParseIntOr(request.Query("page"), 0));
    p.size = ParseIntOr(request.Query("size"), 10);
    if (p.size < 1) {
        p.size = 10;
    }
    p.size = std::min(p.size, 2000);
    const auto sorts = request.QueryAll("sort");
    std::string text;
    for (const auto& s : sorts) {
        if (s.empty()) {
            continue;
        }
        const auto comma = s.find(',');
        const std::string property = s.substr(0, comma);
        std::string direction = comma == std::string::npos ? "asc" : s.substr(comma + 1);
        std::transform(direction.begin(), direction.end(), direction.begin(), [](unsigned char c) { return std::tolower(c); });
        const auto column = store::SortColumnFor(property);
        if (!column) {
            return Error::InvalidArgument("No property " + property + " found for sorting");
        }
        p.sort.push_back({*column, direction == "desc"});
        text += (text.empty() ? "" : "&sort=") + property + "," + (direction == "desc" ? "desc" : "asc");
    }
    if (!text.empty()) {
        p.sort_text = text;
    }
    return p;
}

// The header is held in a local: the token is a view into it, and a temporary header string
// would die before Enroll sends the token (found by the e2e auth tests: the issuer got freed bytes).
Status EnrollCaller(ApiContext& ctx, const server::Request& request, const auth::Principal& principal) {
    if (ctx.token_keeper == nullptr || principal.local) {
        return Ok();
    }
    const std::string header = request.Header("Authorization");
    ORCH_ASSIGN_OR_RETURN(const auto token, auth::ExtractBearerToken(header, ctx.auth_config.max_token_bytes));
    return ctx.token_keeper->Enroll(principal, token);
}

server::Response RawText(const server::Request& request, std::string body) {
    server::Response r = server::Response::Text(200, std::move(body));
    const std::string accept = request.Header("Accept");
    if (accept.find("application/json") != std::string::npos && accept.find("text/") == std::string::npos &&
        accept.find("*/*") == std::string::npos) {
        r.content_type = std::string(server::kJsonContentType);
    }
    return r;
}

}  // namespace orch::api
