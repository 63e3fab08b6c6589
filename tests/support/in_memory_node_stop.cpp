// The in-memory twin of store/pg_node_stop.cpp: the one node-stop picker the lease and idle
// fakes share, as their PostgreSQL counterparts share theirs.
#include "test_support/in_memory_stores.hpp"

#include <algorithm>

namespace orch::test {

workflow::NextStop InMemoryDatabase::QueueNextStop(
    const std::string& deployment_id, const std::vector<std::string>& stoppable_types
) {
    const auto row = rows_.find(deployment_id);
    if (row == rows_.end() || HasWorkflowJob(deployment_id)) {
        return workflow::NextStop::kBusy;
    }
    domain::Resource* next = nullptr;
    for (auto& r : row->second.resources) {
        const bool stoppable = std::any_of(r.type_chain.begin(), r.type_chain.end(), [&](const std::string& t) {
            return std::find(stoppable_types.begin(), stoppable_types.end(), t) != stoppable_types.end();
        });
        if (r.state != domain::NodeState::kStarted || !stoppable) {
            continue;
        }
        if (next == nullptr || std::tie(r.created_at, r.id) < std::tie(next->created_at, next->id)) {
            next = &r;
        }
    }
    if (next == nullptr) {
        return workflow::NextStop::kNoneLeft;
    }
    next->state = domain::NodeState::kStopping;
    next->updated_at = clock_.now();
    InsertJob(
        deployment_id,
        workflow::NextJob{workflow::JobKind::kAction, Json{{"resource", next->id}, {"action", "stop"}}, {}, true}
    );
    return workflow::NextStop::kQueued;
}

}  // namespace orch::test
