// A provider's tries (perProviderMaxRetries): consecutive candidates sharing its timeout.
#include "provider_tries.hpp"

#include <chrono>

namespace orch::workflow::steps {

domain::TimePoint ProviderStartedAt(const WorkflowState& st, int seq) {
    const std::string service = ServiceOfCandidate(st, seq);
    int first = seq;
    while (first > 0 && ServiceOfCandidate(st, first - 1) == service) {
        --first;
    }
    return st.attempts[static_cast<std::size_t>(first)].started_at;
}

std::optional<std::string> ProviderTimedOut(StepServices& s, const WorkflowState& st, int seq) {
    if (seq == 0 || ServiceOfCandidate(st, seq - 1) != ServiceOfCandidate(st, seq)) {
        return std::nullopt;
    }
    const int provider_mins =
        st.deployment.options.provider_timeout_mins.value_or(s.options.default_provider_timeout_mins);
    if (s.clock.now() <= ProviderStartedAt(st, seq - 1) + std::chrono::minutes(provider_mins)) {
        return std::nullopt;
    }
    return "Provider timeout during deployment (" + std::to_string(provider_mins) + " minutes), over its tries";
}

}  // namespace orch::workflow::steps
