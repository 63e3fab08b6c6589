#include "orchestrator/api/http_file_notification_source.hpp"

#include "orchestrator/api/deployment_request.hpp"
#include "orchestrator/schedule/file_expression.hpp"

namespace orch::api {
namespace {

Result<std::string> RequiredString(const Json& body, std::string_view field) {
    ORCH_ASSIGN_OR_RETURN(const auto value, ReadString(body, field));
    if (!value || value->empty()) {
        return Error::InvalidArgument("A file " + std::string(field) + " must be provided");
    }
    if (value->size() > schedule::kMaxFileNameBytes) {  // Rucio allows 25 (scope) and 250 (name)
        return Error::InvalidArgument(
            "A file " + std::string(field) + " must be at most " + std::to_string(schedule::kMaxFileNameBytes) +
            " bytes"
        );
    }
    return *value;
}

Json OutcomeJson(const schedule::FileNotification& file, const schedule::NotificationOutcome& outcome) {
    Json events = Json::array();
    for (const auto& c : outcome.created) {
        events.push_back({{"schedule", c.schedule_id}, {"event", c.event_id}, {"deployment", c.deployment_id}});
    }
    Json failed = Json::array();
    for (const auto& f : outcome.failed) {
        failed.push_back({{"schedule", f.schedule_id}, {"message", f.message}});
    }
    return {
        {"scope", file.scope},
        {"name", file.name},
        {"events", std::move(events)},
        {"alreadyNotified", outcome.already_notified},
        {"failed", std::move(failed)}};
}

}  // namespace

HttpFileNotificationSource::HttpFileNotificationSource(server::Router& router, ApiContext& ctx) : ctx_(ctx) {
    router.Add(
        "POST",
        "/schedules/notifications",
        [this](const server::Request& request) {
            auto result = Handle(request);
            return result ? std::move(*result) : ErrorResponse(result.error());
        },
        {.name = "schedules.notifications"}
    );
}

Result<server::Response> HttpFileNotificationSource::Handle(const server::Request& request) {
    ORCH_ASSIGN_OR_RETURN(const auto principal, Authorize(ctx_, request, auth::Access::kWrite));
    if (!principal.admin) {
        return Error::PermissionDenied("Only admin can notify new files");
    }
    ORCH_ASSIGN_OR_RETURN(const Json body, ParseJsonBody(request));
    schedule::FileNotification file;
    ORCH_ASSIGN_OR_RETURN(file.scope, RequiredString(body, "scope"));
    ORCH_ASSIGN_OR_RETURN(file.name, RequiredString(body, "name"));
    schedule::FileNotificationSink* sink = sink_.load();
    if (sink == nullptr) {
        return Error::Unavailable("File notifications are not being accepted");
    }
    // One notification at a time (the original's STOMP listener was one thread too): each scans
    // every RUNNING schedule, and however cheap one match is, users choose how many schedules
    // there are; a burst of notifications must not take every worker from the rest of the API.
    std::unique_lock one_at_a_time(in_progress_, std::try_to_lock);
    if (!one_at_a_time.owns_lock()) {
        return Error::Unavailable("Another file notification is being processed; retry later");
    }
    ORCH_ASSIGN_OR_RETURN(const auto outcome, sink->OnFileAvailable(file, auth::OwnerFilter::VisibleTo(principal)));
    return server::Response::Json(200, OutcomeJson(file, outcome));
}

}  // namespace orch::api
