#include "orchestrator/api/scaling.hpp"

#include "common/uuid.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace orch::api {
namespace {

bool IsLive(const domain::Resource& r) {
    return r.state != domain::NodeState::kDeleting && r.state != domain::NodeState::kDeleted;
}

}  // namespace

Result<ScalingPlan> PlanScaling(
    const tosca::DeploymentSpec& spec,
    const std::vector<domain::Resource>& existing,
    const std::string& deployment_id,
    domain::TimePoint now
) {
    ScalingPlan plan;
    std::map<std::string, std::vector<const domain::Resource*>> by_node;
    for (const auto& r : existing) {
        if (IsLive(r)) {
            by_node[r.node_name].push_back(&r);
        }
    }
    std::set<std::string> in_template;
    for (const auto& node : spec.nodes) {
        in_template.insert(node.name);
        auto& live = by_node[node.name];
        for (const auto& id : node.removal_list) {
            const auto it = std::find_if(live.begin(), live.end(), [&](const auto* r) { return r->id == id; });
            if (it == live.end()) {
                return Error::InvalidArgument(
                    "Unknown resource with id " + id + " in the removal_list of node " + node.name
                );
            }
            plan.removed.push_back(id);
            live.erase(it);
        }
        // Surplus instances go newest first, so the oldest (most settled) ones stay.
        std::sort(live.begin(), live.end(), [](const auto* a, const auto* b) { return a->created_at < b->created_at; });
        const std::size_t target = static_cast<std::size_t>(std::max(0, node.count));
        while (live.size() > target) {
            plan.removed.push_back(live.back()->id);
            live.pop_back();
        }
        int next_index = 0;
        for (const auto* r : live) {
            next_index = std::max(next_index, r->instance_index + 1);
        }
        for (std::size_t i = live.size(); i < target; ++i) {
            domain::Resource r;
            r.id = SequentialUuid();
            r.deployment_id = deployment_id;
            r.created_at = now;
            r.updated_at = now;
            r.state = domain::NodeState::kCreating;
            r.node_type = node.type;
            r.node_name = node.name;
            r.type_chain = node.type_chain.empty() ? std::vector<std::string>{node.type} : node.type_chain;
            r.instance_index = next_index++;
            plan.added.push_back(std::move(r));
        }
    }
    for (const auto& [name, live] : by_node) {
        if (in_template.count(name) == 0) {
            for (const auto* r : live) {
                plan.removed.push_back(r->id);
            }
        }
    }
    return plan;
}

}  // namespace orch::api
