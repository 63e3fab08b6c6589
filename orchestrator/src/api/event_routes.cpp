// The event log as Server-Sent Events (docs/api.md "Events"): resumable from Last-Event-ID,
// scoped by the same OwnerFilter as the deployments list, bounded per caller and per process.
#include "orchestrator/api/event_routes.hpp"

#include "orchestrator/api/event_stream.hpp"

#include <charconv>

namespace orch::api {
namespace {

using server::Request;
using server::Response;

constexpr std::string_view kEventStreamType = "text/event-stream";
constexpr std::size_t kMaxIdDigits = 18;  // below 2^63: from_chars cannot overflow

// Where the client's last stream ended: the Last-Event-ID header or, for clients that cannot set
// headers (EventSource on a fresh page), the lastEventId query parameter. Digits only.
Result<std::optional<std::int64_t>> LastEventId(const Request& request) {
    std::string text = request.Header("Last-Event-ID");
    if (text.empty()) {
        text = request.Query("lastEventId").value_or("");
    }
    if (text.empty()) {
        return std::optional<std::int64_t>();
    }
    std::int64_t id = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
    if (text.size() > kMaxIdDigits || ec != std::errc() || end != text.data() + text.size() || id < 0) {
        return Error::InvalidArgument("Last-Event-ID must be an event id (decimal digits)");
    }
    return std::optional<std::int64_t>(id);
}

std::string CallerKey(const auth::Principal& principal) {
    return principal.issuer + "\n" + principal.subject;
}

Result<Response> OpenStream(ApiContext& ctx, const auth::Principal& principal, store::EventQuery query) {
    ORCH_ASSIGN_OR_RETURN(auto slot, ctx.events->Open(CallerKey(principal)));
    return Response::Stream(
        std::string(kEventStreamType), std::make_shared<EventStream>(*ctx.events, std::move(query), std::move(slot))
    );
}

// One deployment's events, from its first (or after Last-Event-ID): whoever may GET it.
Result<Response> DeploymentEvents(ApiContext& ctx, const Request& request) {
    if (ctx.events == nullptr) {
        return Error::Unavailable("Event streams are not configured on this server");
    }
    ORCH_ASSIGN_OR_RETURN(const auto principal, Authorize(ctx, request, auth::Access::kRead));
    ORCH_ASSIGN_OR_RETURN(const auto last, LastEventId(request));
    ORCH_ASSIGN_OR_RETURN(const auto d, LoadVisible(ctx, principal, request, false));
    store::EventQuery query{.owner = auth::OwnerFilter::VisibleTo(principal), .deployment_id = d.id};
    query.after_id = last.value_or(0);
    return OpenStream(ctx, principal, std::move(query));
}

// Every deployment the caller may list, from now (or after Last-Event-ID).
Result<Response> AllEvents(ApiContext& ctx, const Request& request) {
    if (ctx.events == nullptr) {
        return Error::Unavailable("Event streams are not configured on this server");
    }
    ORCH_ASSIGN_OR_RETURN(const auto principal, Authorize(ctx, request, auth::Access::kRead));
    ORCH_ASSIGN_OR_RETURN(const auto last, LastEventId(request));
    store::EventQuery query{.owner = auth::OwnerFilter::VisibleTo(principal)};
    if (last) {
        query.after_id = *last;
    } else {
        ORCH_ASSIGN_OR_RETURN(query.after_id, ctx.events->Latest());
    }
    return OpenStream(ctx, principal, std::move(query));
}

}  // namespace

void RegisterEventRoutes(server::Router& router, ApiContext& ctx) {
    router.Add("GET", "/deployments/{id}/events", Wrap(ctx, DeploymentEvents), {.name = "deployments.events"});
    router.Add("GET", "/events", Wrap(ctx, AllEvents), {.name = "events"});
}

}  // namespace orch::api
