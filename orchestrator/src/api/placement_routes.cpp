#include "orchestrator/api/placement_routes.hpp"

#include "orchestrator/api/deployment_request.hpp"
#include "orchestrator/api/input_checks.hpp"
#include "orchestrator/api/views.hpp"

namespace orch::api {
namespace {

using server::Request;
using server::Response;

Result<Response> GetPlacement(ApiContext& ctx, const Request& request) {
    ORCH_ASSIGN_OR_RETURN(const auto principal, Authorize(ctx, request, auth::Access::kRead));
    ORCH_ASSIGN_OR_RETURN(const auto d, LoadVisible(ctx, principal, request, false));
    ORCH_ASSIGN_OR_RETURN(Json decision, ctx.store.GetPlacement(d.id));
    if (decision.is_null()) {
        return Error::NotFound("The deployment <" + d.id + "> has not been placed yet");
    }
    return Response::Json(200, decision);
}

// Every site the deployment was tried on, in order: where it went and why it moved on. Visible
// to whoever may GET the deployment (LoadVisible is the one scoping).
Result<Response> GetAttempts(ApiContext& ctx, const Request& request) {
    ORCH_ASSIGN_OR_RETURN(const auto principal, Authorize(ctx, request, auth::Access::kRead));
    ORCH_ASSIGN_OR_RETURN(const auto d, LoadVisible(ctx, principal, request, false));
    ORCH_ASSIGN_OR_RETURN(const auto attempts, ctx.store.ListAttempts(d.id));
    Json items = Json::array();
    for (const auto& a : attempts) {
        items.push_back(AttemptView(a));
    }
    return Response::Json(200, Json{{"attempts", std::move(items)}});
}

// The same body as a create: validated the same way, ranked, explained, and nothing stored.
Result<Response> DryRun(ApiContext& ctx, const Request& request) {
    ORCH_ASSIGN_OR_RETURN(const auto principal, Authorize(ctx, request, auth::Access::kRead));
    ORCH_ASSIGN_OR_RETURN(const DeploymentRequest body, ParseDeploymentRequest(request));
    ORCH_RETURN_IF_ERROR(CheckCallbackUrl(ctx.egress, body.callback));
    ORCH_RETURN_IF_ERROR(auth::CheckUserGroup(principal, body.user_group));
    if (ctx.placer == nullptr) {
        return Error::Unavailable("Placement is not configured on this server");
    }
    ORCH_ASSIGN_OR_RETURN(
        const tosca::DeploymentSpec spec,
        ctx.templates.Build(body.template_text, body.parameters, workflow::NoAcceptedParameters())
    );
    placement::PlacementRequest place;
    place.spec = &spec;
    place.requester = {principal.issuer, principal.subject, body.user_group.value_or("")};
    place.limits = {
        body.options.target_provider,
        body.options.target_region,
        body.options.max_providers_retry,
        body.options.provider_timeout_mins,
        body.options.timeout_mins,
        body.options.per_provider_max_retries};
    // The caller's own token, for catalogues read on the user's behalf (the Federation Registry).
    constexpr std::string_view kBearer = "Bearer ";
    if (const std::string header = request.Header("Authorization"); header.rfind(kBearer, 0) == 0) {
        place.requester.access_token = header.substr(kBearer.size());
    }
    ORCH_ASSIGN_OR_RETURN(const auto decision, ctx.placer->Place(place));
    // Written as text: for thousands of sites a JSON tree costs more than the placement itself.
    return Response::JsonText(200, decision.ToJsonText());
}

}  // namespace

void RegisterPlacementRoutes(server::Router& router, ApiContext& ctx) {
    router.Add("GET", "/deployments/{id}/placement", Wrap(ctx, GetPlacement), {.name = "deployments.placement"});
    router.Add("POST", "/placement", Wrap(ctx, DryRun), {.name = "placement.dry_run"});
    router.Add("GET", "/deployments/{id}/attempts", Wrap(ctx, GetAttempts), {.name = "deployments.attempts"});
}

}  // namespace orch::api
