#include "sim/mesos_cluster.hpp"

#include <algorithm>
#include <regex>

namespace orch::sim {
namespace {

constexpr double kEpsilon = 1e-9;

std::string AttributeOf(const MesosAgentSpec& agent, const std::string& field) {
    if (field == "hostname") {
        return agent.hostname;
    }
    const auto it = agent.attributes.find(field);
    return it == agent.attributes.end() ? std::string() : it->second;
}

bool HasAttribute(const MesosAgentSpec& agent, const std::string& field) {
    return field == "hostname" || agent.attributes.count(field) != 0;
}

// Only the operators that decide a single placement are evaluated; UNIQUE, GROUP_BY and MAX_PER
// depend on other tasks and are accepted without effect (documented simulator limitation).
bool ConstraintHolds(const MesosAgentSpec& agent, const Json& constraint) {
    if (!constraint.is_array() || constraint.size() < 2 || !constraint[0].is_string() || !constraint[1].is_string()) {
        return true;
    }
    const std::string field = constraint[0].get<std::string>();
    const std::string op = constraint[1].get<std::string>();
    const std::string value =
        constraint.size() > 2 && constraint[2].is_string() ? constraint[2].get<std::string>() : "";
    if (op == "UNLIKE") {
        return !HasAttribute(agent, field) || !MarathonLikeMatches(value, AttributeOf(agent, field));
    }
    if (!HasAttribute(agent, field)) {
        return op != "LIKE" && op != "CLUSTER" && op != "IS";
    }
    if (op == "LIKE") {
        return MarathonLikeMatches(value, AttributeOf(agent, field));
    }
    if (op == "CLUSTER" || op == "IS") {
        return value.empty() || AttributeOf(agent, field) == value;
    }
    return true;
}

}  // namespace

bool MarathonLikeMatches(const std::string& pattern, const std::string& value) {
    std::string body = pattern;
    auto flags = std::regex::ECMAScript;
    if (body.rfind("(?i)", 0) == 0) {
        body = body.substr(4);
        flags |= std::regex::icase;
    }
    if (body.size() > 512 || value.size() > 512) {
        return false;
    }
    try {
        return std::regex_match(value, std::regex(body, flags));
    } catch (const std::regex_error&) {
        return false;
    }
}

std::optional<std::string> MesosCluster::Reject(
    std::size_t index,
    const MesosDemand& demand,
    const Json& constraints,
    bool gpu_restricted,
    const std::set<std::string>& exhausted
) const {
    const auto& agent = agents_[index];
    const auto& used = used_[index];
    const bool all = exhausted.count("all") != 0;
    if (constraints.is_array()) {
        for (const auto& c : constraints) {
            if (!ConstraintHolds(agent, c)) {
                return "UnfulfilledConstraint";
            }
        }
    }
    if (gpu_restricted && demand.gpus == 0 && agent.gpus > 0) {
        return "DeclinedScarceResources";
    }
    if ((all || exhausted.count("cpus") != 0) || used.cpus + demand.cpus > agent.cpus + kEpsilon) {
        return "InsufficientCpus";
    }
    if ((all || exhausted.count("mem") != 0) || used.mem_mb + demand.mem_mb > agent.mem_mb + kEpsilon) {
        return "InsufficientMemory";
    }
    if (used.disk_mb + demand.disk_mb > agent.disk_mb + kEpsilon) {
        return "InsufficientDisk";
    }
    if (demand.gpus > 0 && (all || exhausted.count("gpus") != 0 || used.gpus + demand.gpus > agent.gpus)) {
        return "InsufficientGpus";
    }
    return std::nullopt;
}

MesosPlacement MesosCluster::Place(
    const MesosDemand& demand, const Json& constraints, bool gpu_restricted, const std::set<std::string>& exhausted
) {
    MesosPlacement out;
    for (std::size_t i = 0; i < agents_.size(); ++i) {
        if (auto reason = Reject(i, demand, constraints, gpu_restricted, exhausted)) {
            ++out.rejections[*reason];
            continue;
        }
        used_[i].cpus += demand.cpus;
        used_[i].mem_mb += demand.mem_mb;
        used_[i].disk_mb += demand.disk_mb;
        used_[i].gpus += demand.gpus;
        out.agent = i;
        return out;
    }
    return out;
}

void MesosCluster::Release(std::size_t agent, const MesosDemand& demand) {
    if (agent >= used_.size()) {
        return;
    }
    auto& used = used_[agent];
    used.cpus = std::max(0.0, used.cpus - demand.cpus);
    used.mem_mb = std::max(0.0, used.mem_mb - demand.mem_mb);
    used.disk_mb = std::max(0.0, used.disk_mb - demand.disk_mb);
    used.gpus = std::max(0, used.gpus - demand.gpus);
}

void MesosCluster::Reconfigure(std::vector<MesosAgentSpec> agents) {
    std::vector<MesosDemand> used(agents.size());
    for (std::size_t i = 0; i < agents.size(); ++i) {
        for (std::size_t j = 0; j < agents_.size(); ++j) {
            if (agents_[j].hostname == agents[i].hostname) {
                used[i] = used_[j];
            }
        }
    }
    agents_ = std::move(agents);
    used_ = std::move(used);
}

Json MesosCluster::ToJson() const {
    Json out = Json::array();
    for (std::size_t i = 0; i < agents_.size(); ++i) {
        const auto& a = agents_[i];
        out.push_back(
            {{"hostname", a.hostname},
             {"resources", {{"cpus", a.cpus}, {"mem", a.mem_mb}, {"disk", a.disk_mb}, {"gpus", a.gpus}}},
             {"used_resources",
              {{"cpus", used_[i].cpus}, {"mem", used_[i].mem_mb}, {"disk", used_[i].disk_mb}, {"gpus", used_[i].gpus}}},
             {"attributes", a.attributes}}
        );
    }
    return out;
}

}  // namespace orch::sim
