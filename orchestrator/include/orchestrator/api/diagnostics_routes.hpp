#pragma once

#include "orchestrator/api/api_context.hpp"
#include "orchestrator/server/router.hpp"

#include <cstddef>

namespace orch::api {

/// Byte budgets of the diagnostics document's large parts; a part over its budget is cut and
/// named in the document's `truncated` list (never cut silently).
struct DiagnosticsLimits {
    std::size_t template_bytes = 256u << 10;
    std::size_t placement_bytes = 256u << 10;
    std::size_t log_bytes = 64u << 10;  ///< the log's last bytes are kept (the end says how it ended)
    std::size_t reason_bytes = 4u << 10;
    /// The history read from the event log: at most this many events and this much JSON text.
    std::size_t history_events = 1'000;
    std::size_t history_bytes = 256u << 10;
};

/// GET /deployments/{id}/diagnostics: one JSON document for a support ticket (template, redacted
/// inputs, placement explanation, attempts, status history, versions), visible as GET is.
void RegisterDiagnosticsRoutes(server::Router& router, ApiContext& ctx);

}  // namespace orch::api
