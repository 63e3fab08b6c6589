#pragma once

// A provider's tries (perProviderMaxRetries): consecutive candidates sharing its timeout.
#include "steps_common.hpp"

#include <optional>
#include <string>

namespace orch::workflow::steps {

/// The tries on one provider (perProviderMaxRetries) share its timeout: it runs from the first.
domain::TimePoint ProviderStartedAt(const WorkflowState& st, int seq);

/// A further try on the provider of the previous attempt once its timeout has passed: the try is
/// recorded as failed without creating anything (attempts stay one per candidate, in order).
std::optional<std::string> ProviderTimedOut(StepServices& s, const WorkflowState& st, int seq);

}  // namespace orch::workflow::steps
