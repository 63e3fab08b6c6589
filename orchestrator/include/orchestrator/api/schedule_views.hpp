#pragma once

#include "common/json.hpp"
#include "orchestrator/domain/schedule.hpp"

#include <string>

namespace orch::api {

/// The Schedule JSON of contract §1.5 (links: self).
Json ScheduleView(const domain::Schedule& s, const std::string& base_url);

/// The Schedule event JSON of contract §1.5: the deployment nested with "links": [], and the
/// event's own "links": [].
Json ScheduleEventView(const domain::ScheduleEvent& e);

}  // namespace orch::api
