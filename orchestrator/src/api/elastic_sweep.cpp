#include "orchestrator/api/elastic_sweep.hpp"

#include "common/log.hpp"
#include "orchestrator/api/deployment_update.hpp"
#include "orchestrator/api/elastic_count.hpp"
#include "orchestrator/workflow/elastic_template.hpp"

#include <utility>

namespace orch::api {
namespace {

bool Scalable(domain::Status s) {
    return s == domain::Status::kCreateComplete || s == domain::Status::kUpdateComplete;
}

domain::Event DecisionEvent(
    const workflow::ElasticDecision& decision,
    const workflow::ElasticTarget& target,
    double queue,
    domain::TimePoint now
) {
    domain::Event e;
    e.type = domain::EventType::kElasticScale;
    e.time = now;
    e.data = Json{
        {"action", std::string(workflow::ElasticActionName(decision.action))},
        {"node", target.worker_node},
        {"from", target.count},
        {"to", decision.target},
        {"min", target.min},
        {"max", target.max},
        {"queue", queue},
        {"reason", decision.reason}};
    return e;
}

}  // namespace

ElasticSweep::ElasticSweep(
    ApiContext& ctx, workflow::ElasticStore& store, QueueSignal signal, ElasticSweepOptions options
)
    : ctx_(ctx), store_(store), signal_(std::move(signal)), options_(std::move(options)) {}

ElasticSweep::~ElasticSweep() {
    Stop();
}

void ElasticSweep::Start() {
    thread_ = std::thread([this] {
        std::unique_lock lock(mutex_);
        while (!stopping_) {
            lock.unlock();
            RunOnce();
            lock.lock();
            wake_.wait_for(lock, options_.interval, [this] { return stopping_; });
        }
    });
}

void ElasticSweep::Stop() {
    {
        const std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) {
        thread_.join();
    }
}

int ElasticSweep::RunOnce() {
    auto candidates = store_.Candidates(options_.batch);
    if (!candidates) {
        ORCH_LOG_WARN("elastic: cannot list deployments", {{"error", candidates.error().message}});
        return 0;
    }
    int scaled = 0;
    for (const auto& id : *candidates) {
        // One cluster's trouble (a template edited since, a feed error) must not stop the others.
        try {
            scaled += SweepOne(id) ? 1 : 0;
        } catch (const std::exception& e) {
            ORCH_LOG_ERROR("elastic: sweep failed", {{"deployment_id", id}, {"error", std::string(e.what())}});
        }
    }
    return scaled;
}

bool ElasticSweep::SweepOne(const std::string& id) {
    const auto now = ctx_.clock.now();
    // Half the interval: this replica's next sweep is never refused by its own jitter, while
    // another replica sweeping at the same time finds the turn taken.
    auto memory = store_.ClaimTurn(id, now, options_.interval / 2);
    if (!memory || !*memory) {
        return false;
    }
    auto loaded = ctx_.store.Get(id);
    if (!loaded || !*loaded || !Scalable((*loaded)->status)) {
        return false;
    }
    const domain::Deployment& d = **loaded;
    auto spec = ctx_.templates.Build(d.template_text, d.parameters, d.parameters);
    if (!spec) {
        return false;
    }
    const auto target = workflow::FindElasticTarget(*spec);
    if (!target) {
        return false;
    }
    auto queue = signal_(d);
    if (!queue) {
        ORCH_LOG_WARN("elastic: no queue signal", {{"deployment_id", id}, {"error", queue.error().message}});
        return false;
    }
    workflow::ElasticMemory seen = **memory;
    if (!*queue) {
        // No series: nothing is known of the load, so no level is held and nothing moves.
        seen.high_since.reset();
        seen.low_since.reset();
        (void)store_.Save(id, seen, std::nullopt);
        return false;
    }
    const workflow::ElasticInput input{target->count, target->min, target->max, **queue};
    const auto group = options_.by_group.find(d.user_group);
    const auto& settings = group == options_.by_group.end() ? options_.settings : group->second;
    const auto decision = workflow::DecideElastic(settings, input, seen, now);
    if (decision.action == workflow::ElasticAction::kHold) {
        if (!(decision.memory == seen)) {
            (void)store_.Save(id, decision.memory, std::nullopt);
        }
        return false;
    }
    // The memory (its cool-down started) first, then the scale with its event in one
    // transaction: a kill between the two leaves a cool-down for a scale that did not happen (the
    // next one waits longer), never a scale without its event or without its cool-down.
    if (auto saved = store_.Save(id, decision.memory, std::nullopt); !saved) {
        ORCH_LOG_WARN("elastic: decision not recorded", {{"deployment_id", id}, {"error", saved.error().message}});
        return false;
    }
    if (!Apply(d, decision, target->worker_node, DecisionEvent(decision, *target, **queue, now))) {
        // The level stays remembered; the cool-down does not start for a scale that did not happen.
        workflow::ElasticMemory kept = decision.memory;
        kept.last_scale = seen.last_scale;
        (void)store_.Save(id, kept, std::nullopt);
        return false;
    }
    ORCH_LOG_INFO(
        "elastic: scale started",
        {{"deployment_id", id},
         {"action", std::string(workflow::ElasticActionName(decision.action))},
         {"from", target->count},
         {"to", decision.target},
         {"queue", **queue}}
    );
    return true;
}

bool ElasticSweep::Apply(
    const domain::Deployment& d,
    const workflow::ElasticDecision& decision,
    const std::string& node,
    const domain::Event& event
) {
    auto edit = WithNodeCount(d.template_text, node, decision.target);
    if (!edit) {
        ORCH_LOG_WARN("elastic: cannot set the count", {{"deployment_id", d.id}, {"error", edit.error().message}});
        return false;
    }
    const DeploymentChange change{edit->template_text, edit->parameters, "", d.options, std::nullopt, {event}};
    if (auto begun = BeginDeploymentUpdate(ctx_, d, change); !begun) {
        // A conflict is another replica's or the user's update winning the race: not an error.
        ORCH_LOG_INFO("elastic: scale not started", {{"deployment_id", d.id}, {"error", begun.error().message}});
        return false;
    }
    return true;
}

}  // namespace orch::api
