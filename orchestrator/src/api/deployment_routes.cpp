#include "orchestrator/api/deployment_routes.hpp"

#include "common/log.hpp"
#include "common/uuid.hpp"
#include "orchestrator/api/deployment_request.hpp"
#include "orchestrator/api/deployment_update.hpp"
#include "orchestrator/api/input_checks.hpp"
#include "orchestrator/api/lease_request.hpp"
#include "orchestrator/api/links.hpp"
#include "orchestrator/api/views.hpp"
#include "orchestrator/service/new_deployment.hpp"

namespace orch::api {
namespace {

using server::Request;
using server::Response;

// The self link of GET /deployments: the given filters, and a URI template for the missing ones.
std::string ListSelfHref(
    const std::string& base, const std::optional<std::string>& created_by, const std::optional<std::string>& user_group
) {
    std::string href = base + "/deployments";
    std::string query;
    std::vector<std::string> missing;
    const auto add = [&](const char* name, const std::optional<std::string>& value) {
        if (value && !value->empty()) {
            query += (query.empty() ? "?" : "&") + std::string(name) + "=" + QueryValue(*value);
        } else {
            missing.emplace_back(name);
        }
    };
    add("createdBy", created_by);
    add("userGroup", user_group);
    href += query;
    if (!missing.empty()) {
        href += query.empty() ? "{?" : "{&";
        for (std::size_t i = 0; i < missing.size(); ++i) {
            href += (i == 0 ? "" : ",") + missing[i];
        }
        href += "}";
    }
    return href;
}

// A configured service URL without what may be secret in it: user:password@ and the query
// (some deployments put an API key there). "placement_mode" and other words pass unchanged.
std::string PublicUrl(std::string url) {
    const auto scheme = url.find("://");
    if (scheme == std::string::npos) {
        return url;
    }
    const auto authority = scheme + 3;
    const auto path = std::min(url.find_first_of("/?#", authority), url.size());
    const auto at = url.rfind('@', path);
    if (at != std::string::npos && at >= authority) {
        url.erase(authority, at + 1 - authority);
    }
    if (const auto query = url.find_first_of("?#"); query != std::string::npos) {
        url.resize(query);
    }
    return url;
}

std::vector<std::string> ExcludedStatuses(const Request& request) {
    std::vector<std::string> out;
    for (const auto& value : request.QueryAll("excludedStatus")) {
        std::size_t start = 0;
        while (start <= value.size()) {
            const auto comma = value.find(',', start);
            std::string item = value.substr(start, comma - start);
            if (!item.empty()) {
                out.push_back(item);
            }
            if (comma == std::string::npos) {
                break;
            }
            start = comma + 1;
        }
    }
    return out;
}

Result<Response> ListDeployments(ApiContext& ctx, const Request& request) {
    ORCH_ASSIGN_OR_RETURN(const auto principal, Authorize(ctx, request, auth::Access::kRead));
    const auto created_by = request.Query("createdBy");
    auto user_group = request.Query("userGroup");
    if (user_group && user_group->empty()) {
        user_group.reset();
    }
    ORCH_ASSIGN_OR_RETURN(
        const auto filter,
        auth::ResolveListFilter(principal, created_by.value_or(""), user_group, auth::ListKind::kDeployments)
    );
    ORCH_ASSIGN_OR_RETURN(const Paging paging, ParsePaging(request));
    ORCH_ASSIGN_OR_RETURN(const bool include_deleted, IncludeDeleted(request, principal));
    store::ListQuery query{.owner = filter.owner, .user_group = filter.user_group};
    query.excluded_status = ExcludedStatuses(request);
    query.include_deleted = include_deleted;
    query.page = paging.page;
    query.size = paging.size;
    query.sort = paging.sort;
    ORCH_ASSIGN_OR_RETURN(const auto page, ctx.store.List(query));
    const std::string base = BaseUrl(request, ctx.external_base_url);
    std::string nav = base + "/deployments";
    std::string nav_query;
    const auto add_nav = [&](const char* name, const std::optional<std::string>& v) {
        if (v && !v->empty()) {
            nav_query += (nav_query.empty() ? "?" : "&") + std::string(name) + "=" + QueryValue(*v);
        }
    };
    add_nav("createdBy", created_by);
    add_nav("userGroup", user_group);
    if (const auto excluded = request.Query("excludedStatus")) {
        add_nav("excludedStatus", excluded);  // kept so following `next` keeps the same filter
    }
    if (include_deleted) {
        add_nav(kIncludeDeletedParam.data(), std::string("true"));
    }
    const PageNav page_nav{
        ListSelfHref(base, created_by, user_group),
        nav + nav_query,
        paging.page,
        paging.size,
        page.total,
        paging.sort_text};
    // Written as text straight from the rows: the list is the API's hottest call, and a tree
    // per row cost more than the query (bench/api, docs/api.md).
    const auto write_items = [&](JsonWriter& w) {
        for (const auto& d : page.items) {
            WriteDeploymentView(w, d, base);
        }
    };
    return Response::JsonText(200, PageBody(page_nav, write_items, 1024 + page.items.size() * 1024));
}

Result<Response> CreateDeployment(ApiContext& ctx, const Request& request) {
    ORCH_ASSIGN_OR_RETURN(const auto principal, Authorize(ctx, request, auth::Access::kWrite));
    ORCH_ASSIGN_OR_RETURN(const DeploymentRequest body, ParseDeploymentRequest(request));
    ORCH_RETURN_IF_ERROR(CheckCallbackUrl(ctx.egress, body.callback));
    ORCH_RETURN_IF_ERROR(auth::CheckUserGroup(principal, body.user_group));
    service::DeploymentDraft draft{
        body.template_text,
        body.parameters,
        body.callback,
        body.options,
        body.user_group.value_or(""),
        domain::Owner{principal.issuer, principal.subject, principal.preferred_username, principal.email}};
    ORCH_ASSIGN_OR_RETURN(
        store::NewDeployment created,
        service::BuildNewDeployment(ctx.templates, draft, ctx.deployment_limits, ctx.clock.now())
    );
    ORCH_ASSIGN_OR_RETURN(
        created.deployment.expires_at,
        ResolveLease(ctx, request, principal, draft.user_group, body.expires_at, true, &created.deployment.lease_action)
    );
    ORCH_RETURN_IF_ERROR(EnrollCaller(ctx, request, principal));
    const domain::Deployment& d = created.deployment;
    ORCH_RETURN_IF_ERROR(ctx.store.Create(created));
    if (ctx.wake_workflow) {
        ctx.wake_workflow();
    }
    ORCH_LOG_INFO(
        "deployment created",
        {{"deployment_id", d.id},
         {"kind", d.kind ? std::string(tosca::DeploymentKindName(*d.kind)) : std::string()},
         {"user_group", d.user_group}}
    );
    return Response::JsonText(201, DeploymentViewText(d, BaseUrl(request, ctx.external_base_url)));
}

Result<Response> GetDeployment(ApiContext& ctx, const Request& request) {
    ORCH_ASSIGN_OR_RETURN(const auto principal, Authorize(ctx, request, auth::Access::kRead));
    ORCH_ASSIGN_OR_RETURN(const auto d, LoadVisible(ctx, principal, request, false));
    return Response::JsonText(200, DeploymentViewText(d, BaseUrl(request, ctx.external_base_url)));
}

Result<Response> UpdateDeployment(ApiContext& ctx, const Request& request) {
    ORCH_ASSIGN_OR_RETURN(const auto principal, Authorize(ctx, request, auth::Access::kWrite));
    ORCH_ASSIGN_OR_RETURN(const auto d, LoadVisible(ctx, principal, request, true));
    if (!TakesUpdates(d.kind)) {
        return Error::InvalidArgument(ContractProviderName(*d.kind) + " deployments cannot be updated.");
    }
    if (d.status != domain::Status::kCreateComplete && d.status != domain::Status::kUpdateComplete &&
        d.status != domain::Status::kUpdateFailed) {
        return Error::Conflict("Cannot update a deployment in " + std::string(domain::StatusName(d.status)) + " state");
    }
    ORCH_ASSIGN_OR_RETURN(const DeploymentRequest body, ParseDeploymentRequest(request));
    ORCH_RETURN_IF_ERROR(CheckCallbackUrl(ctx.egress, body.callback));
    Json merged = d.parameters.is_object() ? d.parameters : Json::object();
    merged.update(body.parameters);
    ORCH_ASSIGN_OR_RETURN(
        const auto expires_at, ResolveLease(ctx, request, principal, d.user_group, body.expires_at, false, nullptr)
    );
    if (expires_at && body.template_text == d.template_text && merged == d.parameters &&
        (body.callback.empty() || body.callback == d.callback)) {
        // Only the lease changes: a renewal, which must not redeploy anything.
        ORCH_RETURN_IF_ERROR(ctx.store.RenewLease(d.id, *expires_at));
        domain::Deployment shown = d;
        shown.expires_at = expires_at;
        if (auto reread = ctx.store.Get(d.id); reread && *reread) {
            shown = std::move(**reread);
        }
        return Response::JsonText(202, DeploymentViewText(shown, BaseUrl(request, ctx.external_base_url)));
    }
    DeploymentChange change{body.template_text, body.parameters, body.callback, body.options};
    change.expires_at = expires_at;
    ORCH_RETURN_IF_ERROR(BeginDeploymentUpdate(ctx, d, change, [&] { return EnrollCaller(ctx, request, principal); }));
    // The deployment as GET shows it now, not the original's empty body: orchent decodes the
    // answer and reported "error updating deployment: EOF" for an update that went through.
    // The update is stored: a failed re-read must not turn it into an error, so the view is then
    // the loaded row with BeginUpdate's changes.
    domain::Deployment shown = d;
    shown.status = domain::Status::kUpdateInProgress;
    shown.status_reason.clear();
    shown.task = domain::Task::kNone;
    if (auto reread = ctx.store.Get(d.id); reread && *reread) {
        shown = std::move(**reread);
    }
    return Response::JsonText(202, DeploymentViewText(shown, BaseUrl(request, ctx.external_base_url)));
}

// PATCH {"expiresAt": ...}: the owner renews (or shortens) the lease; nothing is redeployed.
Result<Response> RenewLease(
    ApiContext& ctx,
    const Request& request,
    const auth::Principal& principal,
    const domain::Deployment& d,
    const Json& body
) {
    ORCH_ASSIGN_OR_RETURN(const auto requested, ParseExpiresAt(body));
    if (!requested) {
        return Error::InvalidArgument(
            "expiresAt value must be an ISO-8601 time with a zone, such as 2030-01-31T12:00:00Z"
        );
    }
    ORCH_ASSIGN_OR_RETURN(
        const auto expires_at, ResolveLease(ctx, request, principal, d.user_group, requested, false, nullptr)
    );
    ORCH_RETURN_IF_ERROR(ctx.store.RenewLease(d.id, *expires_at));
    ORCH_LOG_INFO("deployment lease renewed", {{"deployment_id", d.id}});
    return Response::Empty(204);
}

Result<Response> ResetDeployment(ApiContext& ctx, const Request& request) {
    ORCH_ASSIGN_OR_RETURN(const auto principal, Authorize(ctx, request, auth::Access::kWrite));
    ORCH_ASSIGN_OR_RETURN(const auto d, LoadVisible(ctx, principal, request, true));
    ORCH_ASSIGN_OR_RETURN(const Json body, ParseJsonBody(request));
    ORCH_ASSIGN_OR_RETURN(const auto status, ReadString(body, "status"));
    if (!status && body.contains("expiresAt")) {
        return RenewLease(ctx, request, principal, d, body);
    }
    if (!status || *status != "DELETE_FAILED") {
        return Error::InvalidArgument("Cannot reset deployment: illegal status " + status.value_or("null") + ".");
    }
    ORCH_RETURN_IF_ERROR(ctx.store.ResetToDeleteFailed(d.id));
    return Response::Empty(204);
}

Result<Response> DeleteDeployment(ApiContext& ctx, const Request& request) {
    ORCH_ASSIGN_OR_RETURN(const auto principal, Authorize(ctx, request, auth::Access::kWrite));
    ORCH_ASSIGN_OR_RETURN(const auto d, LoadVisible(ctx, principal, request, true));
    std::string force = request.Query("force").value_or("false");
    std::transform(force.begin(), force.end(), force.begin(), [](unsigned char c) { return std::tolower(c); });
    // A body (the dashboard sends a JSON list) is tolerated and ignored.
    ORCH_RETURN_IF_ERROR(ctx.store.BeginDelete(d.id, force == "true"));
    if (ctx.wake_workflow) {
        ctx.wake_workflow();
    }
    ORCH_LOG_INFO("deployment delete requested", {{"deployment_id", d.id}, {"force", force == "true"}});
    return Response::Empty(204);
}

Result<Response> Configuration(ApiContext& ctx, const Request& request) {
    ORCH_ASSIGN_OR_RETURN(const auto principal, Authorize(ctx, request, auth::Access::kRead));
    (void)principal;
    // The original's keys for the services we have an equivalent of, always present like its
    // defaults ("" when ours is local: a file catalogue, no monitoring feed); no IM or CPR here.
    Json body = {{"cmdb_url", ""}, {"slam_url", ""}, {"monitoring_url", ""}};
    if (ctx.placer != nullptr) {
        for (const auto& [key, value] : ctx.placer->ConfigurationEndpoints()) {
            body[key] = PublicUrl(value);  // orchent decodes this as map[string]string: strings only
        }
    }
    return Response::Json(200, body);
}

}  // namespace

void RegisterDeploymentRoutes(server::Router& router, ApiContext& ctx) {
    router.Add("GET", "/configuration", Wrap(ctx, Configuration), {.name = "configuration"});
    router.Add("GET", "/deployments", Wrap(ctx, ListDeployments), {.name = "deployments.list"});
    router.Add("POST", "/deployments", Wrap(ctx, CreateDeployment), {.name = "deployments.create"});
    router.Add("GET", "/deployments/{id}", Wrap(ctx, GetDeployment), {.name = "deployments.get"});
    router.Add("PUT", "/deployments/{id}", Wrap(ctx, UpdateDeployment), {.name = "deployments.update"});
    router.Add("PATCH", "/deployments/{id}", Wrap(ctx, ResetDeployment), {.name = "deployments.reset"});
    router.Add("DELETE", "/deployments/{id}", Wrap(ctx, DeleteDeployment), {.name = "deployments.delete"});
}

}  // namespace orch::api
