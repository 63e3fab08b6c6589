#pragma once

#include "orchestrator/domain/deployment.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace orch::domain {

/// "2026-11-28T10:00:00Z": ISO-8601 UTC, second precision (expiresAt; the contract's own times
/// are minute precision, too coarse for a lease).
std::string FormatIsoTime(TimePoint t);

/// Parses "YYYY-MM-DDTHH:MM[:SS[.fraction]](Z|+HH:MM|-HH:MM|+HHMM|-HHMM)" (a zone is required:
/// a lease must not depend on the server's zone). Fractions are dropped below the second.
/// nullopt for anything else, including impossible dates, years outside 1970-9999 and texts
/// over 64 bytes. No backtracking: one pass over the text.
std::optional<TimePoint> ParseIsoTime(std::string_view text);

}  // namespace orch::domain
