#pragma once

#include "steps_common.hpp"

namespace orch::workflow::steps {

StepResult Deploy(StepServices& s, const Job& job, const CancelToken& cancel);
StepResult Poll(StepServices& s, const Job& job, const CancelToken& cancel);
StepResult Delete(StepServices& s, const Job& job, const CancelToken& cancel);
StepResult DeletePoll(StepServices& s, const Job& job, const CancelToken& cancel);
StepResult Cleanup(StepServices& s, const Job& job, const CancelToken& cancel);
StepResult Update(StepServices& s, const Job& job, const CancelToken& cancel);
StepResult UpdatePoll(StepServices& s, const Job& job, const CancelToken& cancel);
StepResult Action(StepServices& s, const Job& job, const CancelToken& cancel);
StepResult ActionPoll(StepServices& s, const Job& job, const CancelToken& cancel);
StepResult Callback(StepServices& s, const Job& job, const CancelToken& cancel);
StepResult Health(StepServices& s, const Job& job, const CancelToken& cancel);  // self_heal_steps.cpp

/// The first health poll of a deployment that just became CREATE_COMPLETE (none when watching
/// is off: self_healing.check_interval 0).
std::optional<NextJob> WatchHealth(const StepOptions& o);

/// A cleanup of a lost deployment's leftovers (payload "orphan") whose Delete failed: retried
/// with backoff up to self_healing.cleanup_max_backoff until the site answers, for at most
/// cleanup_max_age. Nullopt for any other cleanup or outcome.
std::optional<StepResult> OrphanStillUnreachable(
    const StepServices& s, const Job& job, const connectors::ConnectorResult<connectors::Deletion>& deleted
);

}  // namespace orch::workflow::steps
