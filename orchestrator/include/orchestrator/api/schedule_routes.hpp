#pragma once

#include "orchestrator/api/api_context.hpp"
#include "orchestrator/server/router.hpp"
#include "orchestrator/store/schedule_store.hpp"

namespace orch::api {

/// What the schedule handlers need beyond the deployment API's context.
struct ScheduleApi {
    ApiContext& api;
    store::ScheduleStore& schedules;
};

/// POST/GET /schedules, GET /schedules/{id}, /schedules/{id}/events, /schedules/{id}/template
/// (contract §3.17). No PUT/DELETE: the router answers 405 with Allow.
void RegisterScheduleRoutes(server::Router& router, ScheduleApi& ctx);

}  // namespace orch::api
