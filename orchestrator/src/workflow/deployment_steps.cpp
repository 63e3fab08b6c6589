#include "orchestrator/workflow/deployment_steps.hpp"

#include "create_steps.hpp"
#include "progress.hpp"

namespace orch::workflow {

void RegisterDeploymentSteps(Engine& engine, StepServices& services) {
    using StepImpl = StepResult (*)(StepServices&, const Job&, const CancelToken&);
    const std::pair<JobKind, StepImpl> steps_by_kind[] = {
        {JobKind::kDeploy, steps::Deploy},
        {JobKind::kPoll, steps::Poll},
        {JobKind::kDelete, steps::Delete},
        {JobKind::kDeletePoll, steps::DeletePoll},
        {JobKind::kCleanup, steps::Cleanup},
        {JobKind::kUpdate, steps::Update},
        {JobKind::kUpdatePoll, steps::UpdatePoll},
        {JobKind::kAction, steps::Action},
        {JobKind::kActionPoll, steps::ActionPoll},
        {JobKind::kCallback, steps::Callback},
        {JobKind::kHealth, steps::Health},
    };
    for (const auto& [kind, step] : steps_by_kind) {
        // An init-capture: clang 14 (clang-tidy) rejects capturing a structured binding.
        engine.Register(kind, [&services, impl = step](const Job& job, const CancelToken& cancel) {
            StepResult result = impl(services, job, cancel);
            if (!result.retry) {
                progress::Stamp(result.transition, services.clock);
            }
            return result;
        });
    }
}

}  // namespace orch::workflow
