#include "orchestrator/api/schedule_routes.hpp"

#include "common/log.hpp"
#include "common/uuid.hpp"
#include "orchestrator/api/input_checks.hpp"
#include "orchestrator/api/lease_request.hpp"
#include "orchestrator/api/links.hpp"
#include "orchestrator/api/schedule_request.hpp"
#include "orchestrator/api/schedule_views.hpp"

namespace orch::api {
namespace {

using server::Request;
using server::Response;
using ScheduleHandler = Result<Response> (*)(ScheduleApi&, const Request&);

server::Handler WrapSchedule(ScheduleApi& ctx, ScheduleHandler fn) {
    return [&ctx, fn](const Request& request) {
        auto result = fn(ctx, request);
        return result ? std::move(*result) : ErrorResponse(result.error());
    };
}

std::optional<auth::Owner> OwnerOf(const domain::Schedule& s) {
    if (!s.owner) {
        return std::nullopt;
    }
    return auth::Owner{s.owner->issuer, s.owner->subject};
}

// The original answers an unknown schedule with the deployment text (contract §1.4).
Result<domain::Schedule> LoadSchedule(ScheduleApi& ctx, const auth::Principal& principal, const std::string& id) {
    const Error not_found = Error::NotFound("The deployment <" + id + "> doesn't exist");
    if (!LooksLikeUuid(id)) {
        return not_found;
    }
    ORCH_ASSIGN_OR_RETURN(auto found, ctx.schedules.Get(id));
    if (!found || !auth::IsVisibleTo(principal, OwnerOf(*found))) {
        return not_found;
    }
    return std::move(*found);
}

// The events' lease is checked against the terms their deployments get: those of no group (a
// schedule keeps no userGroup), so the 400 names the schedule's field and that maximum.
Status CheckScheduleLease(ScheduleApi& ctx, const Request& request, const auth::Principal& principal, int mins) {
    const auto end = ctx.api.clock.now() + std::chrono::minutes(mins);
    auto resolved = ResolveLease(ctx.api, request, principal, "", end, false, nullptr);
    if (resolved) {
        return Ok();
    }
    Error error = resolved.error();
    constexpr std::string_view kField = "expiresAt";
    if (error.message.rfind(kField, 0) == 0) {
        error.message = "deploymentExpiresAfterMins" + error.message.substr(kField.size());
    }
    return error;
}

Result<Response> CreateSchedule(ScheduleApi& ctx, const Request& request) {
    ORCH_ASSIGN_OR_RETURN(const auto principal, Authorize(ctx.api, request, auth::Access::kWrite));
    ORCH_ASSIGN_OR_RETURN(const ScheduleRequest body, ParseScheduleRequest(request));
    const DeploymentRequest& dep = body.deployment;
    ORCH_RETURN_IF_ERROR(CheckCallbackUrl(ctx.api.egress, dep.callback));
    ORCH_RETURN_IF_ERROR(ctx.api.templates.Build(dep.template_text, dep.parameters, workflow::NoAcceptedParameters()));
    if (body.deployment_expires_after_mins) {
        ORCH_RETURN_IF_ERROR(CheckScheduleLease(ctx, request, principal, *body.deployment_expires_after_mins));
    }
    // Later events deploy on the user's behalf, long after this token expired.
    ORCH_RETURN_IF_ERROR(EnrollCaller(ctx.api, request, principal));
    domain::Schedule s;
    s.id = SequentialUuid();
    s.created_at = ctx.api.clock.now();
    s.updated_at = s.created_at;
    s.file_expression = body.file_expression;
    s.replication_expression = body.replication_expression;
    s.number_of_replicas = body.number_of_replicas;
    s.callback = dep.callback;
    s.owner = domain::Owner{principal.issuer, principal.subject};
    s.template_text = dep.template_text;
    s.parameters = dep.parameters;
    s.target_provider = dep.options.target_provider;
    s.target_region = dep.options.target_region;
    s.deployment_expires_after_mins = body.deployment_expires_after_mins;
    ORCH_RETURN_IF_ERROR(ctx.schedules.Create(s));
    ORCH_LOG_INFO("schedule created", {{"schedule_id", s.id}});
    return Response::Json(201, ScheduleView(s, BaseUrl(request, ctx.api.external_base_url)));
}

Result<Response> ListSchedules(ScheduleApi& ctx, const Request& request) {
    ORCH_ASSIGN_OR_RETURN(const auto principal, Authorize(ctx.api, request, auth::Access::kRead));
    const auto created_by = request.Query("createdBy");
    ORCH_ASSIGN_OR_RETURN(
        const auto filter,
        auth::ResolveListFilter(principal, created_by.value_or(""), std::nullopt, auth::ListKind::kSchedules)
    );
    ORCH_ASSIGN_OR_RETURN(const Paging paging, ParsePaging(request));
    store::ScheduleQuery query{.owner = filter.owner};
    query.page = paging.page;
    query.size = paging.size;
    query.sort = paging.sort;
    ORCH_ASSIGN_OR_RETURN(const auto page, ctx.schedules.List(query));
    const std::string base = BaseUrl(request, ctx.api.external_base_url);
    // self: the given createdBy, or the URI template for it (contract §1.3).
    const bool filtered = created_by && !created_by->empty();
    const std::string nav = base + "/schedules" + (filtered ? "?createdBy=" + QueryValue(*created_by) : "");
    const std::string self = filtered ? nav : base + "/schedules{?createdBy}";
    const auto write_items = [&](JsonWriter& w) {
        for (const auto& s : page.items) {
            w.Value(ScheduleView(s, base));
        }
    };
    return Response::JsonText(
        200, PageBody({self, nav, paging.page, paging.size, page.total, paging.sort_text}, write_items)
    );
}

Result<Response> GetSchedule(ScheduleApi& ctx, const Request& request) {
    ORCH_ASSIGN_OR_RETURN(const auto principal, Authorize(ctx.api, request, auth::Access::kRead));
    ORCH_ASSIGN_OR_RETURN(const auto s, LoadSchedule(ctx, principal, request.PathParam("id")));
    return Response::Json(200, ScheduleView(s, BaseUrl(request, ctx.api.external_base_url)));
}

Result<Response> ListEvents(ScheduleApi& ctx, const Request& request) {
    ORCH_ASSIGN_OR_RETURN(const auto principal, Authorize(ctx.api, request, auth::Access::kRead));
    ORCH_ASSIGN_OR_RETURN(const Paging paging, ParsePaging(request));
    // As the original, an unknown schedule has no events: 200 with an empty page rather than 404.
    // Contract §2 row 20: any authenticated user, no ownership check; but another issuer's
    // schedule is unknown to the caller (its events carry that issuer's deployments).
    const std::string id = request.PathParam("id");
    store::Page<domain::ScheduleEvent> page;
    if (LooksLikeUuid(id)) {
        ORCH_ASSIGN_OR_RETURN(const auto schedule, ctx.schedules.Get(id));
        if (schedule && auth::IsVisibleTo(principal, OwnerOf(*schedule))) {
            ORCH_ASSIGN_OR_RETURN(page, ctx.schedules.ListEvents(id, paging.page, paging.size, paging.sort));
        }
    }
    // self: the request URL with the page/size/sort of the returned page (contract §1.3).
    const std::string nav = BaseUrl(request, ctx.api.external_base_url) + "/schedules/" + QueryValue(id) + "/events";
    const std::string self = nav + "?page=" + std::to_string(paging.page) + "&size=" + std::to_string(paging.size) +
                             "&sort=" + paging.sort_text;
    const auto write_items = [&](JsonWriter& w) {
        for (const auto& e : page.items) {
            w.Value(ScheduleEventView(e));
        }
    };
    return Response::JsonText(
        200, PageBody({self, nav, paging.page, paging.size, page.total, paging.sort_text}, write_items)
    );
}

Result<Response> GetTemplate(ScheduleApi& ctx, const Request& request) {
    ORCH_ASSIGN_OR_RETURN(const auto principal, Authorize(ctx.api, request, auth::Access::kRead));
    ORCH_ASSIGN_OR_RETURN(const auto s, LoadSchedule(ctx, principal, request.PathParam("id")));
    return RawText(request, s.template_text);
}

}  // namespace

void RegisterScheduleRoutes(server::Router& router, ScheduleApi& ctx) {
    router.Add("GET", "/schedules", WrapSchedule(ctx, ListSchedules), {.name = "schedules.list"});
    router.Add("POST", "/schedules", WrapSchedule(ctx, CreateSchedule), {.name = "schedules.create"});
    router.Add("GET", "/schedules/{id}", WrapSchedule(ctx, GetSchedule), {.name = "schedules.get"});
    router.Add("GET", "/schedules/{id}/events", WrapSchedule(ctx, ListEvents), {.name = "schedules.events"});
    router.Add("GET", "/schedules/{id}/template", WrapSchedule(ctx, GetTemplate), {.name = "schedules.template"});
}

}  // namespace orch::api
