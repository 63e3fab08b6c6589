// Scaling a deployment whose instances (servers, batch jobs) are numbered per TOSCA node: which
// instances stay, which go, and which indexes new ones take. Shared by the connectors that number
// their instances themselves (OpenStack, Slurm).
#pragma once

#include <tosca/deployment_spec.hpp>

#include <algorithm>
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace orch::connectors {

template <class Ref>
struct ScalePlan {
    std::map<std::string, std::vector<Ref>> kept;  ///< per node name, lowest indexes first
    std::vector<Ref> surplus;                      ///< to delete or cancel
};

/// Keeps, per node, the instances not named in its removal_list, lowest indexes first, up to the
/// node's new count; the rest, and instances of nodes no longer in the template, are surplus.
/// `Ref` has `node` and `index`; `id_of(ref)` is the id a removal_list names.
template <class Ref, class IdOf>
ScalePlan<Ref> PlanScale(std::vector<Ref> current, const std::vector<const tosca::NodeSpec*>& nodes, IdOf id_of) {
    std::map<std::string, const tosca::NodeSpec*> by_name;
    std::set<std::string> removal;
    for (const auto* node : nodes) {
        by_name[node->name] = node;
        removal.insert(node->removal_list.begin(), node->removal_list.end());
    }
    std::sort(current.begin(), current.end(), [](const Ref& a, const Ref& b) { return a.index < b.index; });
    ScalePlan<Ref> plan;
    for (const auto& ref : current) {
        const auto node = by_name.find(ref.node);
        auto& bucket = plan.kept[ref.node];
        if (node == by_name.end() || removal.count(id_of(ref)) != 0 ||
            bucket.size() >= static_cast<std::size_t>(std::max(node->second->count, 0))) {
            plan.surplus.push_back(ref);
        } else {
            bucket.push_back(ref);
        }
    }
    return plan;
}

/// The `how_many` lowest indexes not in `used`.
inline std::vector<int> FirstFreeIndexes(const std::set<int>& used, std::size_t how_many) {
    std::vector<int> out;
    for (int index = 0; out.size() < how_many; ++index) {
        if (used.count(index) == 0) {
            out.push_back(index);
        }
    }
    return out;
}

}  // namespace orch::connectors
