#include "sim/sim_config.hpp"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <set>

namespace orch::sim {
namespace {

Status CheckKeys(const Json& object, const std::string& where, const std::set<std::string>& known) {
    if (!object.is_object()) {
        return Error::InvalidArgument(where + " must be a mapping");
    }
    for (const auto& [key, unused] : object.items()) {
        if (known.count(key) == 0) {
            return Error::InvalidArgument("unknown key '" + where + "." + key + "'");
        }
    }
    return Ok();
}

template <typename T>
Status ReadNumber(const Json& object, const std::string& key, const std::string& where, T& out) {
    const auto it = object.find(key);
    if (it == object.end()) {
        return Ok();
    }
    if (!it->is_number() || it->get<double>() < 0) {
        return Error::InvalidArgument(where + "." + key + " must be a non-negative number");
    }
    out = it->get<T>();
    return Ok();
}

Status ReadBool(const Json& object, const std::string& key, const std::string& where, bool& out) {
    const auto it = object.find(key);
    if (it == object.end()) {
        return Ok();
    }
    if (!it->is_boolean()) {
        return Error::InvalidArgument(where + "." + key + " must be true or false");
    }
    out = it->get<bool>();
    return Ok();
}

Status ReadString(const Json& object, const std::string& key, const std::string& where, std::string& out) {
    const auto it = object.find(key);
    if (it == object.end()) {
        return Ok();
    }
    if (!it->is_string()) {
        return Error::InvalidArgument(where + "." + key + " must be a string");
    }
    out = it->get<std::string>();
    return Ok();
}

Status ReadStringMap(
    const Json& object, const std::string& key, const std::string& where, std::map<std::string, std::string>& out
) {
    const auto it = object.find(key);
    if (it == object.end()) {
        return Ok();
    }
    if (!it->is_object()) {
        return Error::InvalidArgument(where + "." + key + " must be a mapping of strings");
    }
    for (const auto& [k, v] : it->items()) {
        out[k] = v.is_string() ? v.get<std::string>() : v.dump();
    }
    return Ok();
}

Status ReadStringList(
    const Json& object, const std::string& key, const std::string& where, std::vector<std::string>& out
) {
    const auto it = object.find(key);
    if (it == object.end()) {
        return Ok();
    }
    if (!it->is_array()) {
        return Error::InvalidArgument(where + "." + key + " must be a list of strings");
    }
    out.clear();
    for (const auto& v : *it) {
        if (!v.is_string()) {
            return Error::InvalidArgument(where + "." + key + " must be a list of strings");
        }
        out.push_back(v.get<std::string>());
    }
    return Ok();
}

Result<MesosAgentSpec> ParseAgent(const Json& node, const std::string& where) {
    ORCH_RETURN_IF_ERROR(CheckKeys(node, where, {"hostname", "cpus", "mem_mb", "disk_mb", "gpus", "attributes"}));
    MesosAgentSpec agent;
    ORCH_RETURN_IF_ERROR(ReadString(node, "hostname", where, agent.hostname));
    ORCH_RETURN_IF_ERROR(ReadNumber(node, "cpus", where, agent.cpus));
    ORCH_RETURN_IF_ERROR(ReadNumber(node, "mem_mb", where, agent.mem_mb));
    ORCH_RETURN_IF_ERROR(ReadNumber(node, "disk_mb", where, agent.disk_mb));
    ORCH_RETURN_IF_ERROR(ReadNumber(node, "gpus", where, agent.gpus));
    ORCH_RETURN_IF_ERROR(ReadStringMap(node, "attributes", where, agent.attributes));
    if (agent.hostname.empty()) {
        return Error::InvalidArgument(where + ".hostname is required");
    }
    return agent;
}

Result<KubeNodeSpec> ParseNode(const Json& node, const std::string& where) {
    ORCH_RETURN_IF_ERROR(
        CheckKeys(node, where, {"name", "cpu", "memory_mb", "gpus", "gpu_product", "labels", "gpu_taint"})
    );
    KubeNodeSpec spec;
    ORCH_RETURN_IF_ERROR(ReadString(node, "name", where, spec.name));
    ORCH_RETURN_IF_ERROR(ReadNumber(node, "cpu", where, spec.cpu));
    ORCH_RETURN_IF_ERROR(ReadNumber(node, "memory_mb", where, spec.memory_mb));
    ORCH_RETURN_IF_ERROR(ReadNumber(node, "gpus", where, spec.gpus));
    ORCH_RETURN_IF_ERROR(ReadString(node, "gpu_product", where, spec.gpu_product));
    ORCH_RETURN_IF_ERROR(ReadStringMap(node, "labels", where, spec.labels));
    ORCH_RETURN_IF_ERROR(ReadBool(node, "gpu_taint", where, spec.gpu_taint));
    if (spec.name.empty()) {
        return Error::InvalidArgument(where + ".name is required");
    }
    return spec;
}

Status ParseTiming(const Json& node, SimTiming& timing) {
    const std::string where = "timing";
    ORCH_RETURN_IF_ERROR(CheckKeys(
        node,
        where,
        {"task_start", "health", "job_run", "kill", "pod_start", "namespace_gone", "vm_boot", "vm_configure"}
    ));
    ORCH_RETURN_IF_ERROR(ReadNumber(node, "task_start", where, timing.task_start));
    ORCH_RETURN_IF_ERROR(ReadNumber(node, "health", where, timing.health));
    ORCH_RETURN_IF_ERROR(ReadNumber(node, "job_run", where, timing.job_run));
    ORCH_RETURN_IF_ERROR(ReadNumber(node, "kill", where, timing.kill));
    ORCH_RETURN_IF_ERROR(ReadNumber(node, "pod_start", where, timing.pod_start));
    ORCH_RETURN_IF_ERROR(ReadNumber(node, "vm_boot", where, timing.vm_boot));
    ORCH_RETURN_IF_ERROR(ReadNumber(node, "vm_configure", where, timing.vm_configure));
    return ReadNumber(node, "namespace_gone", where, timing.namespace_gone);
}

Status ParseSections(const Json& doc, SimConfig& config) {
    if (const auto it = doc.find("timing"); it != doc.end()) {
        ORCH_RETURN_IF_ERROR(ParseTiming(*it, config.timing));
    }
    if (const auto it = doc.find("marathon"); it != doc.end()) {
        ORCH_RETURN_IF_ERROR(CheckKeys(*it, "marathon", {"gpu_resources", "gpu_restricted"}));
        ORCH_RETURN_IF_ERROR(ReadBool(*it, "gpu_resources", "marathon", config.marathon_gpu_resources));
        ORCH_RETURN_IF_ERROR(ReadBool(*it, "gpu_restricted", "marathon", config.marathon_gpu_restricted));
    }
    if (const auto it = doc.find("chronos"); it != doc.end()) {
        ORCH_RETURN_IF_ERROR(CheckKeys(*it, "chronos", {"gpu_support"}));
        ORCH_RETURN_IF_ERROR(ReadBool(*it, "gpu_support", "chronos", config.chronos_gpu_support));
    }
    if (const auto it = doc.find("auth"); it != doc.end()) {
        ORCH_RETURN_IF_ERROR(CheckKeys(*it, "auth", {"tokens", "basic"}));
        ORCH_RETURN_IF_ERROR(ReadStringList(*it, "tokens", "auth", config.tokens));
        ORCH_RETURN_IF_ERROR(ReadStringList(*it, "basic", "auth", config.basic));
    }
    if (const auto it = doc.find("im"); it != doc.end()) {
        ORCH_RETURN_IF_ERROR(CheckKeys(*it, "im", {"tosca_mirrors"}));
        const auto mirrors = it->find("tosca_mirrors");
        if (mirrors != it->end() && !mirrors->is_string()) {
            return Error::InvalidArgument("im.tosca_mirrors must be text (URL_PREFIX=DIR;...)");
        }
        if (mirrors != it->end()) {
            config.im_tosca_mirrors = mirrors->get<std::string>();
        }
    }
    if (const auto it = doc.find("faults"); it != doc.end()) {
        if (!it->is_array()) {
            return Error::InvalidArgument("faults must be a list of rules");
        }
        config.faults = *it;
    }
    return ApplyCapacity(doc, config);
}

Json YamlNodeToJson(const YAML::Node& node, int depth) {
    if (depth > 64) {
        return nullptr;
    }
    switch (node.Type()) {
        case YAML::NodeType::Sequence: {
            Json out = Json::array();
            for (const auto& item : node) {
                out.push_back(YamlNodeToJson(item, depth + 1));
            }
            return out;
        }
        case YAML::NodeType::Map: {
            Json out = Json::object();
            for (const auto& item : node) {
                out[item.first.as<std::string>()] = YamlNodeToJson(item.second, depth + 1);
            }
            return out;
        }
        case YAML::NodeType::Scalar: {
            const std::string& text = node.Scalar();
            if (node.Tag() == "!") {  // quoted: always a string
                return text;
            }
            if (text == "true" || text == "false") {
                return text == "true";
            }
            double number = 0;
            const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
            if (ec == std::errc() && ptr == text.data() + text.size() && !text.empty()) {
                if (text.find_first_of(".eE") == std::string::npos) {
                    return static_cast<std::int64_t>(number);
                }
                return number;
            }
            return text;
        }
        default:
            return nullptr;
    }
}

}  // namespace

SimConfig SimConfig::Default() {
    SimConfig config;
    config.mesos_agents = {
        {"cpu-agent-1.sim", 16, 65536, 500000, 0, {}},
        {"cpu-agent-2.sim", 16, 65536, 500000, 0, {}},
        {"gpu-agent-1.sim", 16, 65536, 500000, 2, {{"gpu_model", "tesla-v100"}}},
    };
    config.kube_nodes = {
        {"cpu-node-1", 16, 65536, 0, "", {}, false},
        {"cpu-node-2", 16, 65536, 0, "", {}, false},
        {"gpu-node-1", 16, 65536, 2, "Tesla-V100-PCIE-16GB", {}, false},
    };
    return config;
}

Status ApplyCapacity(const Json& doc, SimConfig& config) {
    if (const auto it = doc.find("mesos_agents"); it != doc.end()) {
        if (!it->is_array()) {
            return Error::InvalidArgument("mesos_agents must be a list");
        }
        std::vector<MesosAgentSpec> agents;
        for (std::size_t i = 0; i < it->size(); ++i) {
            auto agent = ParseAgent((*it)[i], "mesos_agents[" + std::to_string(i) + "]");
            if (!agent) {
                return agent.error();
            }
            agents.push_back(std::move(*agent));
        }
        config.mesos_agents = std::move(agents);
    }
    if (const auto it = doc.find("kube_nodes"); it != doc.end()) {
        if (!it->is_array()) {
            return Error::InvalidArgument("kube_nodes must be a list");
        }
        std::vector<KubeNodeSpec> nodes;
        for (std::size_t i = 0; i < it->size(); ++i) {
            auto node = ParseNode((*it)[i], "kube_nodes[" + std::to_string(i) + "]");
            if (!node) {
                return node.error();
            }
            nodes.push_back(std::move(*node));
        }
        config.kube_nodes = std::move(nodes);
    }
    return Ok();
}

Json CapacityToJson(const SimConfig& config) {
    Json agents = Json::array();
    for (const auto& a : config.mesos_agents) {
        agents.push_back(
            {{"hostname", a.hostname},
             {"cpus", a.cpus},
             {"mem_mb", a.mem_mb},
             {"disk_mb", a.disk_mb},
             {"gpus", a.gpus},
             {"attributes", a.attributes}}
        );
    }
    Json nodes = Json::array();
    for (const auto& n : config.kube_nodes) {
        nodes.push_back(
            {{"name", n.name},
             {"cpu", n.cpu},
             {"memory_mb", n.memory_mb},
             {"gpus", n.gpus},
             {"gpu_product", n.gpu_product},
             {"labels", n.labels},
             {"gpu_taint", n.gpu_taint}}
        );
    }
    return {{"mesos_agents", agents}, {"kube_nodes", nodes}};
}

Result<SimConfig> ParseSimConfig(const Json& doc) {
    SimConfig config = SimConfig::Default();
    if (doc.is_null()) {
        return config;
    }
    ORCH_RETURN_IF_ERROR(CheckKeys(
        doc,
        "(top)",
        {"speed", "timing", "mesos_agents", "kube_nodes", "marathon", "chronos", "auth", "max_objects", "faults", "im"}
    ));
    ORCH_RETURN_IF_ERROR(ReadNumber(doc, "speed", "(top)", config.speed));
    ORCH_RETURN_IF_ERROR(ReadNumber(doc, "max_objects", "(top)", config.max_objects));
    ORCH_RETURN_IF_ERROR(ParseSections(doc, config));
    return config;
}

Result<Json> YamlToJson(const std::string& text, const std::string& origin) {
    try {
        return YamlNodeToJson(YAML::Load(text), 0);
    } catch (const YAML::Exception& e) {
        return Error::InvalidArgument(origin + ": " + e.what());
    }
}

}  // namespace orch::sim
