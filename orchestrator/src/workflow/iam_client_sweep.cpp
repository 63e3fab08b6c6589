#include "orchestrator/workflow/iam_client_sweep.hpp"

#include "common/log.hpp"

namespace orch::workflow {
namespace {

// No attempt of the deployment runs or will run: its clients serve nothing.
bool Finished(const std::optional<WorkflowState>& state) {
    if (!state) {
        return true;
    }
    const domain::Status status = state->deployment.status;
    return status == domain::Status::kDeleteComplete || status == domain::Status::kCreateFailed;
}

}  // namespace

IamClientSweeper::IamClientSweeper(
    IamClientRegistry& registry, WorkflowStore& deployments, const Clock& clock, IamClientSweepOptions options
)
    : registry_(registry), deployments_(deployments), clock_(clock), options_(options) {}

IamClientSweeper::~IamClientSweeper() {
    Stop();
}

void IamClientSweeper::Start() {
    thread_ = std::thread([this] { Run(); });
}

void IamClientSweeper::Stop() {
    {
        const std::lock_guard lock(mutex_);
        stop_.store(true);
    }
    stopped_.notify_all();
    if (thread_.joinable()) {
        thread_.join();
    }
}

void IamClientSweeper::Run() {
    std::unique_lock lock(mutex_);
    while (!stop_.load()) {
        lock.unlock();
        if (const auto swept = SweepOnce(); !swept) {
            ORCH_LOG_WARN("iam clients: sweep failed", {{"error", swept.error().message}});
        }
        lock.lock();
        stopped_.wait_for(lock, options_.interval, [this] { return stop_.load(); });
    }
}

Result<int> IamClientSweeper::SweepOnce() {
    ORCH_ASSIGN_OR_RETURN(
        const auto deployment_ids, registry_.DeploymentsWithClients(clock_.now() - options_.grace, options_.batch)
    );
    int released = 0;
    for (const auto& id : deployment_ids) {
        auto state = deployments_.Load(id);
        if (!state || !Finished(*state)) {
            continue;  // a live deployment keeps its clients; a database blip waits for the next sweep
        }
        if (auto done = registry_.ReleaseAll(id); !done) {
            // One issuer's trouble must not stop the others; the next sweep retries.
            ORCH_LOG_WARN("iam clients: cannot release", {{"deployment_id", id}, {"error", done.error().message}});
            continue;
        }
        ++released;
    }
    return released;
}

}  // namespace orch::workflow
