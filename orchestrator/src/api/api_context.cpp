#include "orchestrator/api/api_context.hpp"

#include "common/uuid.hpp"

#include <algorithm>
#include <charconv>

namespace orch::api {
namespace {

// More keys than the sortable columns can only repeat one; the bound keeps the statement small.
constexpr std::size_t kMaxSortKeys = 16;

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
    return server::Response::Error(error);
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

Result<bool> IncludeDeleted(const server::Request& request, const auth::Principal& principal) {
    std::string value = request.Query(kIncludeDeletedParam).value_or("false");
    std::transform(value.begin(), value.end(), value.begin(), [](unsigned char c) { return std::tolower(c); });
    if (value != "true") {
        return false;
    }
    if (!principal.admin) {
        return Error::PermissionDenied("Only admin can retrieve deleted deployments");
    }
    return true;
}

Result<domain::Deployment> LoadVisible(
    ApiContext& ctx, const auth::Principal& principal, const server::Request& request, bool owner_only
) {
    const std::string id = request.PathParam("id");
    const Error not_found = Error::NotFound("The deployment <" + id + "> doesn't exist");
    if (!LooksLikeUuid(id)) {
        return not_found;
    }
    // Reads may ask for a deleted deployment's audit record; nothing may change one.
    bool include_deleted = false;
    if (request.method == "GET") {
        ORCH_ASSIGN_OR_RETURN(include_deleted, IncludeDeleted(request, principal));
    }
    ORCH_ASSIGN_OR_RETURN(auto found, ctx.store.Get(id));
    if (!found || !auth::IsVisibleTo(principal, OwnerOf(*found))) {
        return not_found;
    }
    // The original removed a deployment once its delete completed; the row we keep is an audit
    // record (purged after deployments.deleted_retention), gone for everyone else.
    if (found->status == domain::Status::kDeleteComplete && !include_deleted) {
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
    // Spring Data's reading of each `sort` value: comma-separated properties, the last item a
    // direction (asc/desc, any case) for all of them if it is one, else ascending:
    // sort=status,createdAt,desc orders by status desc, then createdAt desc.
    std::string text;
    for (const auto& s : request.QueryAll("sort")) {
        std::vector<std::string> items;
        for (std::size_t start = 0; start <= s.size();) {
            const auto comma = std::min(s.find(',', start), s.size());
            items.push_back(s.substr(start, comma - start));
            start = comma + 1;
        }
        std::string last = items.back();
        std::transform(last.begin(), last.end(), last.begin(), [](unsigned char c) { return std::tolower(c); });
        const bool has_direction = last == "asc" || last == "desc";
        const bool descending = last == "desc";
        if (has_direction) {
            items.pop_back();
        }
        for (const auto& property : items) {
            if (property.empty()) {
                continue;
            }
            if (p.sort.size() >= kMaxSortKeys) {
                return Error::InvalidArgument(
                    "At most " + std::to_string(kMaxSortKeys) + " sort properties are allowed"
                );
            }
            const auto column = store::SortColumnFor(property);
            if (!column) {
                return Error::InvalidArgument("No property " + property + " found for sorting");
            }
            p.sort.push_back({*column, descending});
            text += (text.empty() ? "" : "&sort=") + property + "," + (descending ? "desc" : "asc");
        }
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
