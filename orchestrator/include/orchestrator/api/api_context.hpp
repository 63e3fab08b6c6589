#pragma once

#include "common/clock.hpp"
#include "common/egress_policy.hpp"
#include "common/result.hpp"
#include "orchestrator/auth/auth_config.hpp"
#include "orchestrator/auth/authenticator.hpp"
#include "orchestrator/auth/authorization.hpp"
#include "orchestrator/auth/token_keeper.hpp"
#include "orchestrator/placement/placer.hpp"
#include "orchestrator/server/request.hpp"
#include "orchestrator/server/response.hpp"
#include "orchestrator/server/router.hpp"
#include "orchestrator/service/deployment_limits.hpp"
#include "orchestrator/store/deployment_store.hpp"
#include "orchestrator/workflow/lease_policy.hpp"
#include "orchestrator/workflow/template_service.hpp"

#include <functional>
#include <string>
#include <string_view>

namespace orch::api {

class EventFeed;

/// What the REST handlers work with; built in main and outliving the router.
struct ApiContext {
    store::DeploymentStore& store;
    workflow::TemplateService& templates;
    auth::Authenticator& authenticator;
    auth::TokenKeeper* token_keeper = nullptr;  ///< null: no acting for users later (tests)
    const auth::AuthConfig& auth_config;
    const Clock& clock;                   ///< creation times of deployments, schedules, resources
    placement::Placer* placer = nullptr;  ///< null: dry runs and /configuration say so
    std::string external_base_url;
    std::function<void()> wake_workflow;            ///< a deployment was queued: look for work now
    const http::EgressPolicy* egress = nullptr;     ///< checks callback URLs; null: public addresses only
    service::DeploymentLimits deployment_limits{};  ///< instance cap of creates and updates
    EventFeed* events = nullptr;                    ///< the event streams; null: they answer 503
    workflow::LeasePolicySource* leases = nullptr;  ///< groups' lease terms; null: no defaults, no maximum
};

/// A handler body that returns a Response or an Error, adapted to the router (errors rendered
/// with ErrorResponse).
using ApiHandler = Result<server::Response> (*)(ApiContext&, const server::Request&);
server::Handler Wrap(ApiContext& ctx, ApiHandler fn);

/// An error as the contract renders it (server::Response::Error: WWW-Authenticate, Retry-After
/// and the 500 text all come from the error's typed details).
server::Response ErrorResponse(const Error& error);

/// Authenticates the request and checks the scopes `access` needs.
Result<auth::Principal> Authorize(ApiContext& ctx, const server::Request& request, auth::Access access);

/// A 200 with raw text (templates) in the content type the client can take: text/plain unless it
/// only accepts JSON (orchent sends Accept: application/json and still reads the raw body).
server::Response RawText(const server::Request& request, std::string body);

/// Hands the caller's bearer token to the token keeper (when auth is on), so work done later on
/// the caller's behalf can refresh it.
Status EnrollCaller(ApiContext& ctx, const server::Request& request, const auth::Principal& principal);

/// The owner as stored on a deployment, in the auth module's terms.
std::optional<auth::Owner> OwnerOf(const domain::Deployment& d);

/// The admin-only query parameter that shows deleted deployments' audit records (lists, GETs).
inline constexpr std::string_view kIncludeDeletedParam = "includeDeleted";

/// Whether the request asks (`includeDeleted=true`) for deleted deployments; 403 "Only admin can
/// retrieve deleted deployments" unless the principal is an admin.
Result<bool> IncludeDeleted(const server::Request& request, const auth::Principal& principal);

/// Loads the deployment of the request's `{id}` that the principal may see: 404 "The deployment
/// <id> doesn't exist" otherwise (also for another issuer's deployment, and for a deleted one
/// unless an admin's GET says includeDeleted=true). With `owner_only`, 403 unless owner (or admin).
Result<domain::Deployment> LoadVisible(
    ApiContext& ctx, const auth::Principal& principal, const server::Request& request, bool owner_only
);

/// page/size/sort query parameters with Spring Data's defaults and bounds; an unknown sort
/// property is 400 (the original answered 500).
struct Paging {
    int page = 0;
    int size = 10;
    std::vector<store::SortKey> sort;
    std::string sort_text = "createdAt,desc";  ///< echoed in navigation links
};
Result<Paging> ParsePaging(const server::Request& request);

}  // namespace orch::api
