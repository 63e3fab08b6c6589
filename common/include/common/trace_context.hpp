#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace orch::trace {

/// A W3C Trace Context `traceparent` (https://www.w3.org/TR/trace-context/#traceparent-header).
struct TraceParent {
    std::string trace_id;   ///< 32 lowercase hex digits, not all zero
    std::string parent_id;  ///< 16 lowercase hex digits, not all zero
    bool sampled = false;   ///< trace-flags bit 0
};

/// The header parsed strictly as the specification's version 00 (and, as it asks, a higher
/// version read by its version-00 prefix when followed by '-' or nothing); nullopt for anything
/// else: uppercase hex, an all-zero id, version ff, a wrong length or separator. An invalid
/// header is ignored by callers (a new trace is started), never an error to the client.
std::optional<TraceParent> ParseTraceparent(std::string_view header);

/// A new random trace id (32 hex) and span id (16 hex); never all zero.
std::string NewTraceId();
std::string NewSpanId();

/// "00-<trace id>-<span id>-<flags>".
std::string FormatTraceparent(std::string_view trace_id, std::string_view span_id, bool sampled);

/// The trace of the work this thread does while the scope lives (a request, a workflow step):
/// log lines carry its id (log.hpp) and outbound HTTP calls send it (http_client.hpp).
class ScopedTrace {
   public:
    ScopedTrace(std::string trace_id, bool sampled);
    ~ScopedTrace();
    ScopedTrace(const ScopedTrace&) = delete;
    ScopedTrace& operator=(const ScopedTrace&) = delete;

   private:
    std::string saved_trace_id_;
    bool saved_sampled_ = false;
};

/// The current thread's trace id; empty outside any trace.
const std::string& CurrentTraceId();
bool CurrentTraceSampled();

/// The `traceparent` for an outbound call made in the current trace (a new span id each call);
/// empty outside any trace.
std::string OutboundTraceparent();

}  // namespace orch::trace
