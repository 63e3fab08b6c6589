#include "orchestrator/schedule/schedule_event_service.hpp"

#include "common/log.hpp"
#include "common/uuid.hpp"
#include "orchestrator/service/new_deployment.hpp"

#include <algorithm>

namespace orch::schedule {

ScheduleEventService::ScheduleEventService(
    store::ScheduleStore& schedules,
    workflow::TemplateService& templates,
    std::function<void()> wake_workflow,
    const Clock& clock,
    ScheduleEventOptions options
)
    : schedules_(schedules),
      templates_(templates),
      wake_workflow_(std::move(wake_workflow)),
      clock_(clock),
      options_(options) {}

Result<NotificationOutcome> ScheduleEventService::OnFileAvailable(
    const FileNotification& file, const auth::OwnerFilter& scope
) {
    const std::string did = file.scope + ":" + file.name;
    NotificationOutcome outcome;
    std::string after;
    while (true) {  // keyset pages: memory stays bounded whatever the number of schedules
        ORCH_ASSIGN_OR_RETURN(const auto page, schedules_.ListRunning(scope, after, options_.page_size));
        for (const auto& s : page) {
            if (!expressions_.Matches(s.file_expression, did)) {
                continue;
            }
            bool duplicate = false;
            auto created = CreateEvent(s.id, file, duplicate);
            if (!created) {
                if (created.error().code == ErrorCode::kUnavailable) {
                    return created.error();  // the database is gone: the caller must retry
                }
                outcome.failed.push_back({s.id, created.error().message});
            } else if (duplicate) {
                outcome.already_notified.push_back(s.id);
            } else {
                outcome.created.push_back(std::move(*created));
            }
        }
        if (static_cast<int>(page.size()) < options_.page_size) {
            break;
        }
        after = page.back().id;
    }
    if (!outcome.created.empty() && wake_workflow_) {
        wake_workflow_();
    }
    ORCH_LOG_INFO(
        "file notification",
        {{"did", did},
         {"events", outcome.created.size()},
         {"already_notified", outcome.already_notified.size()},
         {"failed", outcome.failed.size()}}
    );
    return outcome;
}

// A scheduled deployment is made while nobody watches: without a lease it would hold its
// resources until someone deletes it. It gets the schedule's lease (`deploymentExpiresAfterMins`)
// or else the default lease of a create without `expiresAt` (no group of its own:
// placement.default_group's SLA, else leases.default_duration); no token is forwarded (there is
// no caller), so SLAM answers as for an unknown caller.
Status ScheduleEventService::ApplyLease(const domain::Schedule& schedule, domain::Deployment& d) {
    if (options_.leases == nullptr) {
        return Ok();
    }
    const auto& owner = schedule.owner;
    ORCH_ASSIGN_OR_RETURN(const auto policy, options_.leases->ForGroup(d.user_group, owner ? owner->issuer : "", ""));
    const domain::TimePoint now = clock_.now();
    if (schedule.deployment_expires_after_mins) {
        // Checked against the maximum when the schedule was made; one lowered since caps it.
        const auto asked = now + std::chrono::minutes(*schedule.deployment_expires_after_mins);
        d.expires_at = policy.maximum ? std::min(asked, now + *policy.maximum) : asked;
        d.lease_action = policy.action;
        return Ok();
    }
    ORCH_ASSIGN_OR_RETURN(d.expires_at, workflow::ResolveExpiry(std::nullopt, policy, now, true));
    d.lease_action = policy.action;
    return Ok();
}

Result<NotificationOutcome::Created> ScheduleEventService::CreateEvent(
    const std::string& schedule_id, const FileNotification& file, bool& duplicate
) {
    ORCH_ASSIGN_OR_RETURN(const auto schedule, schedules_.Get(schedule_id));
    if (!schedule) {
        return Error::NotFound("The schedule <" + schedule_id + "> doesn't exist");
    }
    // Events deploy with the request defaults (the original stores neither timeouts nor userGroup),
    // on the schedule's forced target when it named one.
    service::DeploymentDraft draft;
    draft.options.target_provider = schedule->target_provider;
    draft.options.target_region = schedule->target_region;
    draft.template_text = schedule->template_text;
    draft.parameters = schedule->parameters;
    draft.callback = schedule->callback;
    draft.owner = schedule->owner;
    draft.parameters_accepted = true;
    ORCH_ASSIGN_OR_RETURN(
        store::NewDeployment deployment, service::BuildNewDeployment(templates_, draft, options_.limits, clock_.now())
    );
    ORCH_RETURN_IF_ERROR(ApplyLease(*schedule, deployment.deployment));
    domain::ScheduleEvent event;
    event.id = SequentialUuid();
    event.schedule_id = schedule_id;
    event.created_at = deployment.deployment.created_at;
    event.updated_at = event.created_at;
    event.scope = file.scope;
    event.name = file.name;
    ORCH_ASSIGN_OR_RETURN(const bool stored, schedules_.CreateEvent(event, deployment));
    duplicate = !stored;
    return NotificationOutcome::Created{schedule_id, event.id, deployment.deployment.id};
}

}  // namespace orch::schedule
