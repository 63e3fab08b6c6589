#pragma once

#include "common/metrics.hpp"
#include "orchestrator/server/http_server.hpp"

namespace orch::ops {

/// The server observer that counts requests by route pattern, method and status and records their
/// latency: orch_http_requests_total, orch_http_request_duration_seconds.
server::RequestObserver MakeRequestMetricsObserver(metrics::Registry& registry);

/// The method label: the standard methods as sent, anything else "other" (bounded labels).
std::string MethodLabel(std::string_view method);

}  // namespace orch::ops
