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

}  // namespace orch::workflow::steps
