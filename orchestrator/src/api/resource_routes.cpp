#include "common/uuid.hpp"
#include "orchestrator/api/deployment_request.hpp"
#include "orchestrator/api/deployment_routes.hpp"
#include "orchestrator/api/links.hpp"
#include "orchestrator/api/views.hpp"

#include <algorithm>

namespace orch::api {
namespace {

using server::Request;
using server::Response;

constexpr std::string_view kComputeType = "tosca.nodes.indigo.Compute";
// A Marathon deployment's actions act on its apps (0 instances <-> the count they had).
constexpr std::string_view kMarathonAppType = "tosca.nodes.indigo.Container.Application.Docker.Marathon";
// A Kubernetes deployment's actions act on its Deployments (0 replicas <-> the count they had).
constexpr std::string_view kKubernetesAppType = "tosca.nodes.indigo.Container.Application.Docker.Kubernetes";
// A Chronos deployment's actions disable and enable its jobs.
constexpr std::string_view kChronosJobType = "tosca.nodes.indigo.Container.Application.Docker.Chronos";

std::string_view ActionType(const std::optional<tosca::DeploymentKind>& kind) {
    if (kind == tosca::DeploymentKind::kMarathon) {
        return kMarathonAppType;
    }
    if (kind == tosca::DeploymentKind::kKubernetes) {
        return kKubernetesAppType;
    }
    return kind == tosca::DeploymentKind::kChronos ? kChronosJobType : kComputeType;
}

bool Derives(const domain::Resource& r, std::string_view type) {
    return std::find(r.type_chain.begin(), r.type_chain.end(), type) != r.type_chain.end();
}

Result<Response> GetTemplate(ApiContext& ctx, const Request& request) {
    ORCH_ASSIGN_OR_RETURN(const auto principal, Authorize(ctx, request, auth::Access::kRead));
    ORCH_ASSIGN_OR_RETURN(const auto d, LoadVisible(ctx, principal, request, false));
    return RawText(request, d.template_text);
}

Result<Response> GetLog(ApiContext& ctx, const Request& request) {
    ORCH_ASSIGN_OR_RETURN(const auto principal, Authorize(ctx, request, auth::Access::kRead));
    ORCH_ASSIGN_OR_RETURN(const auto d, LoadVisible(ctx, principal, request, true));
    ORCH_ASSIGN_OR_RETURN(const std::string log, ctx.store.GetLog(d.id));
    // [post-4.0.1] falls back to the status reason when the target has no log of its own.
    return RawText(request, log.empty() ? d.status_reason : log);
}

Result<Response> GetExtraInfo(ApiContext& ctx, const Request& request) {
    ORCH_ASSIGN_OR_RETURN(const auto principal, Authorize(ctx, request, auth::Access::kRead));
    ORCH_ASSIGN_OR_RETURN(const auto d, LoadVisible(ctx, principal, request, true));
    ORCH_ASSIGN_OR_RETURN(const auto resources, ctx.store.ListResources(d.id, std::nullopt, 0, 100000, {}));
    // Always a JSON array (orchent pretty-prints it): each VM's info object, in resource order.
    Json info = Json::array();
    for (const auto& r : resources.items) {
        const auto it = r.metadata.find("VirtualMachineInfo");
        if (it != r.metadata.end() && it->is_string()) {
            Json parsed = Json::parse(it->get<std::string>(), nullptr, false);
            if (!parsed.is_discarded()) {
                info.push_back(std::move(parsed));
            }
        }
    }
    ORCH_ASSIGN_OR_RETURN(const auto attempts, ctx.store.ListAttempts(d.id));
    // The attempts go last, as one {"attempts": [...]} object, so element 0 stays the first
    // resource's info whenever there is one (the dashboard reads element 0), and a deployment never
    // tried anywhere keeps the contract's [].
    if (!attempts.empty()) {
        Json items = Json::array();
        for (const auto& a : attempts) {
            items.push_back(AttemptView(a));
        }
        info.push_back(Json{{"attempts", std::move(items)}});
    }
    return RawText(request, info.dump());
}

Result<Response> ListResources(ApiContext& ctx, const Request& request) {
    ORCH_ASSIGN_OR_RETURN(const auto principal, Authorize(ctx, request, auth::Access::kRead));
    ORCH_ASSIGN_OR_RETURN(const auto d, LoadVisible(ctx, principal, request, false));
    ORCH_ASSIGN_OR_RETURN(const Paging paging, ParsePaging(request));
    auto type = request.Query("type");
    if (type && type->empty()) {
        type.reset();
    }
    ORCH_ASSIGN_OR_RETURN(const auto page, ctx.store.ListResources(d.id, type, paging.page, paging.size, paging.sort));
    const std::string base = BaseUrl(request, ctx.external_base_url);
    std::string nav = base + "/deployments/" + d.id + "/resources";
    if (type) {
        nav += "?type=" + QueryValue(*type);
    }
    const char sep = nav.find('?') == std::string::npos ? '?' : '&';
    const std::string self = nav + sep + "page=" + std::to_string(paging.page) +
                             "&size=" + std::to_string(paging.size) + "&sort=" + paging.sort_text;
    const auto write_items = [&](JsonWriter& w) {
        for (const auto& r : page.items) {
            w.Value(ResourceView(r, base));
        }
    };
    return Response::JsonText(
        200, PageBody({self, nav, paging.page, paging.size, page.total, paging.sort_text}, write_items)
    );
}

Result<Response> FilterResources(ApiContext& ctx, const Request& request) {
    ORCH_ASSIGN_OR_RETURN(const auto principal, Authorize(ctx, request, auth::Access::kRead));
    const auto type = request.Query("type");
    if (!type) {
        return Error::InvalidArgument("Required String parameter 'type' is not present");
    }
    if (type->empty()) {
        return Error::InvalidArgument("Required String parameter 'type' cannot be empty");
    }
    ORCH_ASSIGN_OR_RETURN(const auto d, LoadVisible(ctx, principal, request, false));
    ORCH_ASSIGN_OR_RETURN(const auto page, ctx.store.ListResources(d.id, type, 0, 100000, {}));
    const std::string base = BaseUrl(request, ctx.external_base_url);
    Json content = Json::array();
    for (const auto& r : page.items) {
        content.push_back(ResourceView(r, base));
    }
    return Response::Json(200, content);
}

Result<Response> GetResource(ApiContext& ctx, const Request& request) {
    ORCH_ASSIGN_OR_RETURN(const auto principal, Authorize(ctx, request, auth::Access::kRead));
    ORCH_ASSIGN_OR_RETURN(const auto d, LoadVisible(ctx, principal, request, false));
    const std::string rid = request.PathParam("rid");
    const Error not_found = Error::NotFound("The resource <" + rid + "> in deployment <" + d.id + "> doesn't exist");
    if (!LooksLikeUuid(rid)) {
        return not_found;
    }
    ORCH_ASSIGN_OR_RETURN(const auto r, ctx.store.GetResource(d.id, rid));
    if (!r) {
        return not_found;
    }
    return Response::Json(200, ResourceView(*r, BaseUrl(request, ctx.external_base_url)));
}

Result<Response> PostAction(ApiContext& ctx, const Request& request) {
    ORCH_ASSIGN_OR_RETURN(const auto principal, Authorize(ctx, request, auth::Access::kAction));
    ORCH_ASSIGN_OR_RETURN(const auto d, LoadVisible(ctx, principal, request, true));
    ORCH_ASSIGN_OR_RETURN(const Json body, ParseJsonBody(request));
    ORCH_ASSIGN_OR_RETURN(const auto type, ReadString(body, "type"));
    if (!type) {
        return Error::InvalidArgument("An action type must be provided");
    }
    const std::string rid = request.PathParam("rid");
    ORCH_ASSIGN_OR_RETURN(
        const auto r,
        LooksLikeUuid(rid) ? ctx.store.GetResource(d.id, rid) : Result<std::optional<domain::Resource>>(std::nullopt)
    );
    if (!r) {
        return Error::InvalidArgument("Resource " + rid + " not found in deployment " + d.id);
    }
    if (!TakesActions(d.kind)) {
        return Error::InvalidArgument(ContractProviderName(*d.kind) + " deployment: actions not supported yet.");
    }
    if (*type != "start" && *type != "stop") {
        return Error::InvalidArgument("Invalid action " + *type);
    }
    if (!Derives(*r, ActionType(d.kind))) {
        return Error::InvalidArgument("Actions not supported on node of type " + r->node_type);
    }
    ORCH_RETURN_IF_ERROR(ctx.store.BeginAction(d.id, rid, *type));
    return Response::Empty(202);
}

}  // namespace

void RegisterResourceRoutes(server::Router& router, ApiContext& ctx) {
    router.Add("GET", "/deployments/{id}/template", Wrap(ctx, GetTemplate), {.name = "deployments.template"});
    router.Add("GET", "/deployments/{id}/log", Wrap(ctx, GetLog), {.name = "deployments.log"});
    router.Add("GET", "/deployments/{id}/extrainfo", Wrap(ctx, GetExtraInfo), {.name = "deployments.extrainfo"});
    router.Add("GET", "/deployments/{id}/resources", Wrap(ctx, ListResources), {.name = "resources.list"});
    // Registered before {rid} so that "filter" is not taken for a resource id.
    router.Add("GET", "/deployments/{id}/resources/filter", Wrap(ctx, FilterResources), {.name = "resources.filter"});
    router.Add("GET", "/deployments/{id}/resources/{rid}", Wrap(ctx, GetResource), {.name = "resources.get"});
    router.Add(
        "POST", "/deployments/{id}/resources/{rid}/actions", Wrap(ctx, PostAction), {.name = "resources.action"}
    );
}

}  // namespace orch::api
