#pragma once

#include "common/clock.hpp"
#include "orchestrator/schedule/file_expression.hpp"
#include "orchestrator/schedule/file_notification.hpp"
#include "orchestrator/service/deployment_limits.hpp"
#include "orchestrator/store/schedule_store.hpp"
#include "orchestrator/workflow/lease_policy.hpp"
#include "orchestrator/workflow/template_service.hpp"

#include <functional>

namespace orch::schedule {

struct ScheduleEventOptions {
    int page_size = 500;                 ///< RUNNING schedules read per query while matching
    service::DeploymentLimits limits{};  ///< the same instance cap POST /deployments applies
    /// The lease terms an event's deployment gets (it has no group: the default group's, else
    /// the operator's, docs/lifecycle.md "Leases"); null: no lease. Must outlive the service.
    workflow::LeasePolicySource* leases = nullptr;
};

/// Turns a file notification into schedule events: for every RUNNING schedule whose fileExpression
/// matches "scope:name", once per (schedule, file), a deployment is built from the schedule's
/// template, parameters, callback and owner through the same path POST /deployments uses
/// (validated, then placed and deployed by the workflow), and recorded as the event's deployment.
/// The Rucio replication-rule steps of the original (contract §7.1 steps 1, 4, 9) are not done.
class ScheduleEventService final : public FileNotificationSink {
   public:
    ScheduleEventService(
        store::ScheduleStore& schedules,
        workflow::TemplateService& templates,
        std::function<void()> wake_workflow,
        const Clock& clock,
        ScheduleEventOptions options = {}
    );

    Result<NotificationOutcome> OnFileAvailable(const FileNotification& file, const auth::OwnerFilter& scope) override;

   private:
    /// One matching schedule: build and store its event; `duplicate` is set (and nothing stored)
    /// when this file already triggered the schedule.
    Result<NotificationOutcome::Created> CreateEvent(
        const std::string& schedule_id, const FileNotification& file, bool& duplicate
    );

    /// Gives the event's deployment the schedule's lease, else the default one
    /// (ScheduleEventOptions::leases).
    Status ApplyLease(const domain::Schedule& schedule, domain::Deployment& d);

    store::ScheduleStore& schedules_;
    workflow::TemplateService& templates_;
    std::function<void()> wake_workflow_;
    const Clock& clock_;
    ScheduleEventOptions options_;
    FileExpressionCache expressions_;
};

}  // namespace orch::schedule
