#include "orchestrator/workflow/deployment_steps.hpp"

#include "create_steps.hpp"

namespace orch::workflow {

void RegisterDeploymentSteps(Engine& engine, StepServices& services) {
    using StepImpl = StepResult (*)(StepServices&, const Job&, const CancelToken&);
    const std::pair<const char*, StepImpl> kSteps[] = {
        {"deploy", steps::Deploy},        {"poll", steps::Poll},          {"delete", steps::Delete},
        {"delete_poll", steps::DeletePoll}, {"cleanup", steps::Cleanup}, {"update", steps::Update},
        {"update_poll", steps::UpdatePoll}, {"action", steps::Action},   {"action_poll", steps::ActionPoll},
        {"callback", steps::Callback},
    };
    for (const auto& [kind, impl] : kSteps) {
        engine.Register(kind, [&services, impl](const Job& job, const CancelToken& cancel) {
            return impl(services, job, cancel);
        });
    }
}

}  // namespace orch::workflow
